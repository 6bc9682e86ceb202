import { describe, expect, it } from 'vitest';
import { foldResultView } from '../../application/results/result-view.js';
import { webhookPayload } from '../../application/webhooks/deliver-webhook/deliver-webhook.js';
import type { RenderEvent } from '../../domain/renders/render-events.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const url = 'https://hooks.example.com/r';
const at = (second: number) => `2026-02-01T10:00:${String(second).padStart(2, '0')}.000Z`;
const requested = renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: at(0), webhookUrl: url });
const completed = renderCompleted({ requestId: 'r1', completedAt: at(1) });
const failedRender: RenderEvent = { type: 'RenderFailed', data: { requestId: 'r1', reason: 'boom', failedAt: at(1) } };
const attemptFailed = (attempt: number, statusCode: number | null): RenderEvent => ({
  type: 'WebhookDeliveryFailed',
  data: { requestId: 'r1', deliveryId: 'd1', url, attempt, statusCode, error: `failure ${attempt}`, failedAt: at(1 + attempt) },
});
const delivered = (attempts: number): RenderEvent => ({
  type: 'WebhookDelivered',
  data: { requestId: 'r1', deliveryId: 'd1', url, attempts, statusCode: 202, deliveredAt: at(9) },
});
const abandoned: RenderEvent = {
  type: 'WebhookAbandoned',
  data: { requestId: 'r1', deliveryId: 'd1', url, attempts: 2, reason: 'window closed', abandonedAt: at(9) },
};

const webhookOf = (events: RenderEvent[]) => foldResultView(events)?.webhook;

describe('the webhook state of a result', () => {
  it('is none without a webhookUrl', () => {
    expect(webhookOf([renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: at(0) })])).toBeNull();
  });

  it('is pending until the first attempt', () => {
    expect(webhookOf([requested, completed])).toEqual({ url, status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, deliveredAt: null });
  });

  it('is retrying after a failed attempt, with what the receiver said', () => {
    expect(webhookOf([requested, completed, attemptFailed(1, 500), attemptFailed(2, null)])).toMatchObject({
      status: 'retrying',
      attempts: 2,
      lastStatusCode: null,
      lastError: 'failure 2',
    });
  });

  it('is delivered, with the attempts it took', () => {
    expect(webhookOf([requested, completed, attemptFailed(1, 500), delivered(2)])).toEqual({
      url,
      status: 'delivered',
      attempts: 2,
      lastStatusCode: 202,
      lastError: null,
      deliveredAt: at(9),
    });
  });

  it('stays delivered whatever arrives late', () => {
    expect(webhookOf([requested, completed, delivered(1), attemptFailed(1, 500)])).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('is failed once abandoned, keeping the last answer', () => {
    expect(webhookOf([requested, completed, attemptFailed(1, 500), attemptFailed(2, 503), abandoned])).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastStatusCode: 503,
      lastError: 'failure 2',
    });
  });

  it('stays pending when an image render fails: its webhook reports the failure', () => {
    expect(webhookOf([requested, failedRender])).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('stays pending when a video fails: its webhook reports the failure', () => {
    const video = renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: at(0), webhookUrl: url, spec: { format: 'mp4', duration: 1000, fps: 25 } });
    expect(webhookOf([video, failedRender])).toMatchObject({ status: 'pending' });
  });
});

describe('webhookPayload', () => {
  const stateOf = (events: RenderEvent[]) => {
    const state = foldEvents(renderDecider, events);
    if (state.status === 'absent') throw new Error('absent');
    return state;
  };

  it('is { requestId, href, request } for an image', () => {
    expect(webhookPayload(stateOf([requested, completed]), 'https://x/r1.png')).toEqual({ requestId: 'r1', href: 'https://x/r1.png', request: requested.data.request });
  });

  it('adds the status for a video, done or failed', () => {
    const video = renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: at(0), webhookUrl: url, spec: { format: 'webm', duration: 1000, fps: 25 } });
    expect(webhookPayload(stateOf([video, completed]), 'h')).toEqual({ requestId: 'r1', href: 'h', request: video.data.request, status: 'done' });
    expect(webhookPayload(stateOf([video, failedRender]), 'h')).toMatchObject({ status: 'failed' });
  });

  it('says what fitting did to the text, when it fitted any', () => {
    const fit = { title: { fontSize: 21.5, lines: 2, truncated: false } };
    const fitted: RenderEvent = { ...completed, data: { ...(completed.data as Extract<RenderEvent, { type: 'RenderCompleted' }>['data']), fit } } as RenderEvent;
    expect(webhookPayload(stateOf([requested, fitted]), 'h')).toEqual({ requestId: 'r1', href: 'h', request: requested.data.request, fit });
  });

  it('says that an image render failed, and why', () => {
    expect(webhookPayload(stateOf([requested, failedRender]), 'h')).toEqual({ requestId: 'r1', href: 'h', request: requested.data.request, status: 'failed', failureReason: 'boom' });
  });
});
