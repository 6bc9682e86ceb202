import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, webhookHeaders } from '../../application/webhooks/webhook-signature.js';

const secret = 'whsec_0123456789abcdef0123456789abcdef0123';
const body = JSON.stringify({ requestId: 'r1', href: 'https://example.com/r1.png', request: { template: 't1' } });
const timestamp = 1_767_225_600;

describe('signWebhook', () => {
  it('is the hex HMAC-SHA256 of "<timestamp>.<body>" under the secret', () => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    expect(signWebhook(secret, timestamp, body)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the timestamp, the body and the secret', () => {
    const base = signWebhook(secret, timestamp, body);
    expect(signWebhook(secret, timestamp + 1, body)).not.toBe(base);
    expect(signWebhook(secret, timestamp, `${body} `)).not.toBe(base);
    expect(signWebhook(`${secret}x`, timestamp, body)).not.toBe(base);
  });
});

describe('webhookHeaders', () => {
  it('carries the delivery id, the timestamp and one v1 signature per secret, current first', () => {
    const headers = webhookHeaders({ deliveryId: 'd1', timestamp, body, secrets: [secret, 'whsec_previous_previous_previous_previous'] });
    expect(headers['X-Webhook-Id']).toBe('d1');
    expect(headers['X-Webhook-Timestamp']).toBe(String(timestamp));
    expect(headers['X-Webhook-Signature']).toBe(
      `v1=${signWebhook(secret, timestamp, body)},v1=${signWebhook('whsec_previous_previous_previous_previous', timestamp, body)}`,
    );
  });
});

describe('verifyWebhook', () => {
  const signed = webhookHeaders({ deliveryId: 'd1', timestamp, body, secrets: [secret] });
  const verify = (overrides: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
    verifyWebhook({
      secret,
      body,
      timestamp: signed['X-Webhook-Timestamp'],
      signature: signed['X-Webhook-Signature'],
      nowSeconds: timestamp + 10,
      ...overrides,
    });

  it('accepts what was signed', () => expect(verify()).toEqual({ ok: true }));

  it('accepts when any listed signature matches (a rotation in progress)', () => {
    const both = webhookHeaders({ deliveryId: 'd1', timestamp, body, secrets: ['whsec_new_new_new_new_new_new_new_new_new', secret] });
    expect(verify({ signature: both['X-Webhook-Signature'] })).toEqual({ ok: true });
  });

  it.each([
    ['another secret', { secret: `${secret}x` }, /does not match/],
    ['a changed body', { body: body.replace('r1', 'r2') }, /does not match/],
    ['a moved timestamp', { timestamp: String(timestamp + 1) }, /does not match/],
    ['a stale timestamp', { nowSeconds: timestamp + 301 }, /tolerance/],
    ['a timestamp from the future', { nowSeconds: timestamp - 301 }, /tolerance/],
    ['no timestamp', { timestamp: null }, /timestamp/],
    ['a malformed timestamp', { timestamp: '12e3' }, /timestamp/],
    ['no signature', { signature: undefined }, /no v1/],
    ['another scheme only', { signature: `v0=${signWebhook(secret, timestamp, body)}` }, /no v1/],
    ['a truncated signature', { signature: signed['X-Webhook-Signature'].slice(0, -2) }, /does not match/],
    ['a signature with non-hex characters', { signature: `${signed['X-Webhook-Signature'].slice(0, -1)}z` }, /does not match/],
  ])('refuses %s', (_name, overrides, reason) => {
    const result = verify(overrides);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });

  it('takes a custom tolerance', () => expect(verify({ nowSeconds: timestamp + 20, toleranceSeconds: 5 }).ok).toBe(false));
});
