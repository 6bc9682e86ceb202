import { describe, expect, it } from 'vitest';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { AccountEvent } from '../../domain/accounts/account-events.js';
import { foldEvents } from '../../domain/shared/decider.js';
import type { RenderEvent } from '../../domain/renders/render-events.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import { deciderSpec } from '../support/decider-spec.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const now = '2026-01-02T03:04:05.000Z';
const later = '2026-01-02T03:05:05.000Z';
const url = 'https://hooks.example.com/render';

describe('webhook deliveries on the render stream', () => {
  const spec = deciderSpec(renderDecider);
  const requested = renderRequested({ requestId: 'r1', orgId: 'org-a', requestedAt: now, webhookUrl: url });
  const completed = renderCompleted({ requestId: 'r1', completedAt: now });
  const failure = (attempt: number, deliveryId = 'd1') => ({
    type: 'RecordWebhookFailure' as const,
    data: { requestId: 'r1', deliveryId, url, attempt, statusCode: 500, error: 'the receiver answered 500', now },
  });
  const failed = (attempt: number): RenderEvent => ({
    type: 'WebhookDeliveryFailed',
    data: { requestId: 'r1', deliveryId: 'd1', url, attempt, statusCode: 500, error: 'the receiver answered 500', failedAt: now },
  });
  const delivery = (attempt: number) => ({
    type: 'RecordWebhookDelivery' as const,
    data: { requestId: 'r1', deliveryId: 'd1', url, attempt, statusCode: 204, now: later },
  });
  const delivered = (attempts: number): RenderEvent => ({
    type: 'WebhookDelivered',
    data: { requestId: 'r1', deliveryId: 'd1', url, attempts, statusCode: 204, deliveredAt: later },
  });
  const abandon = { type: 'AbandonWebhook' as const, data: { requestId: 'r1', deliveryId: 'd1', url, reason: 'window closed', now: later } };
  const abandoned = (attempts: number): RenderEvent => ({
    type: 'WebhookAbandoned',
    data: { requestId: 'r1', deliveryId: 'd1', url, attempts, reason: 'window closed', abandonedAt: later },
  });

  it('records a failed attempt', () => spec.given([requested, completed]).when(failure(1)).then([failed(1)]));
  it('records the same attempt once', () => spec.given([requested, completed, failed(1)]).when(failure(1)).thenNothingHappens());
  it('records the next attempt', () => spec.given([requested, completed, failed(1)]).when(failure(2)).then([failed(2)]));
  it('records the delivery with its attempt count', () =>
    spec.given([requested, completed, failed(1), failed(2)]).when(delivery(3)).then([delivered(3)]));
  it('records a delivery once', () => spec.given([requested, completed, delivered(1)]).when(delivery(2)).thenNothingHappens());
  it('records no failure after the delivery', () => spec.given([requested, completed, delivered(1)]).when(failure(2)).thenNothingHappens());
  it('keeps deliveries apart by id', () =>
    spec.given([requested, completed, delivered(1)]).when(failure(1, 'd2')).then([
      {
        type: 'WebhookDeliveryFailed',
        data: { requestId: 'r1', deliveryId: 'd2', url, attempt: 1, statusCode: 500, error: 'the receiver answered 500', failedAt: now },
      },
    ]));
  it('abandons with the attempts recorded', () => spec.given([requested, completed, failed(1), failed(2)]).when(abandon).then([abandoned(2)]));
  it('abandons a delivery no worker ever tried, with no attempts', () => spec.given([requested, completed]).when(abandon).then([abandoned(0)]));
  it('does not abandon a delivered webhook', () => spec.given([requested, completed, delivered(1)]).when(abandon).thenNothingHappens());
  it('abandons once', () => spec.given([requested, completed, failed(1), abandoned(1)]).when(abandon).thenNothingHappens());
  it('records no delivery after abandoning', () => spec.given([requested, completed, abandoned(0)]).when(delivery(1)).thenNothingHappens());
  it('still records after the result was deleted', () =>
    spec.given([requested, completed, { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: now } }]).when(delivery(1)).then([delivered(1)]));
  it('needs a request', () => spec.given([]).when(failure(1)).thenThrows('not_found'));
});

describe('webhook secrets on the account stream', () => {
  const spec = deciderSpec(accountDecider);
  const plan = { name: 'free', status: 'active', credits: 1000, renewalAmount: 1000, nextRenewalAt: '2026-02-02', uploadsBytes: 100 };
  // The decider carries sealed strings without opening them; any distinct strings stand in here.
  const secret = 'v1:k1:aaaaaaaaaaaaaaaa:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  const newSecret = 'v1:k1:bbbbbbbbbbbbbbbb:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
  const opened: AccountEvent = { type: 'AccountOpened', data: { orgId: 'org-a', name: 'Acme', plan, openedAt: now } };
  const issued: AccountEvent = { type: 'WebhookSecretIssued', data: { orgId: 'org-a', secret: { sealed: secret }, issuedAt: now } };
  const rotated: AccountEvent = { type: 'WebhookSecretRotated', data: { orgId: 'org-a', secret: { sealed: newSecret }, rotatedAt: later } };
  const issue = (value = secret) => ({ type: 'IssueWebhookSecret' as const, data: { orgId: 'org-a', sealedSecret: value, now } });
  const rotate = (value = newSecret) => ({ type: 'RotateWebhookSecret' as const, data: { orgId: 'org-a', sealedSecret: value, now: later } });

  it('issues the secret with the account', () =>
    spec.given([]).when({ type: 'OpenAccount', data: { orgId: 'org-a', name: 'Acme', plan, now, sealedWebhookSecret: secret } }).then([opened, issued]));
  it('issues one to an account that has none', () => spec.given([opened]).when(issue()).then([issued]));
  it('keeps the first secret when asked again', () => spec.given([opened, issued]).when(issue(newSecret)).thenNothingHappens());
  it('rotates to a new secret', () => spec.given([opened, issued]).when(rotate()).then([rotated]));
  it('a retried rotation records nothing more', () => spec.given([opened, issued, rotated]).when(rotate()).thenNothingHappens());
  it('rotates away from a secret issued in the clear, which then signs through the grace period', () => {
    const legacy: AccountEvent = { type: 'WebhookSecretIssued', data: { orgId: 'org-a', secret: { plain: 'whsec_legacy' }, issuedAt: now } };
    spec.given([opened, legacy]).when(rotate()).then([rotated]);
    const state = foldEvents(accountDecider, [opened, legacy, rotated]);
    expect(state).toMatchObject({ webhookSecret: { sealed: newSecret }, previousWebhookSecret: { secret: { plain: 'whsec_legacy' }, rotatedAt: later } });
  });
  it('needs an open account', () => spec.given([]).when(rotate()).thenThrows('not_found'));
});
