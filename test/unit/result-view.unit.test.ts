import { describe, expect, it } from 'vitest';
import { foldResultView } from '../../application/results/result-view.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const requested = renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: '2026-02-01T10:00:00.500Z', spec: { expires: 60 } });

describe('foldResultView', () => {
  it('is null for an empty stream', () => {
    expect(foldResultView([])).toBeNull();
  });

  it('starts pending, with the link expiry counted from the request in whole seconds', () => {
    expect(foldResultView([requested])).toMatchObject({ status: 'pending', expiresAt: Date.parse('2026-02-01T10:00:00Z') / 1000 + 60, width: null });
  });

  it('takes the first outcome only', () => {
    const view = foldResultView([
      requested,
      renderCompleted({ requestId: 'r1', completedAt: '2026-02-01T10:00:02.000Z', width: 10, height: 20 }),
      { type: 'RenderFailed', data: { requestId: 'r1', reason: 'late', failedAt: '2026-02-01T10:00:03.000Z' } },
    ]);
    expect(view).toMatchObject({ status: 'done', width: 10, height: 20, failureReason: null, credits: 1 });
    expect(view?.completedAt?.toISOString()).toBe('2026-02-01T10:00:02.000Z');
  });

  it('keeps a failure when a completion arrives late', () => {
    const view = foldResultView([
      requested,
      { type: 'RenderFailed', data: { requestId: 'r1', reason: 'boom', failedAt: '2026-02-01T10:00:02.000Z' } },
      renderCompleted({ requestId: 'r1', completedAt: '2026-02-01T10:00:03.000Z' }),
    ]);
    expect(view).toMatchObject({ status: 'failed', failureReason: 'boom', storageKey: null, credits: 0 });
  });

  it('stays null after a deletion, whatever the stream records about its webhook later', () => {
    const url = 'https://hooks.example.com/r';
    expect(
      foldResultView([
        renderRequested({ requestId: 'r1', orgId: 'o1', requestedAt: '2026-02-01T10:00:00.000Z', webhookUrl: url }),
        renderCompleted({ requestId: 'r1', completedAt: '2026-02-01T10:00:02.000Z' }),
        { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: '2026-02-01T10:00:04.000Z' } },
        { type: 'WebhookDelivered', data: { requestId: 'r1', deliveryId: 'd1', url, attempts: 1, statusCode: 200, deliveredAt: '2026-02-01T10:00:05.000Z' } },
      ]),
    ).toBeNull();
  });

  it('is null once the result was deleted', () => {
    expect(
      foldResultView([
        requested,
        renderCompleted({ requestId: 'r1', completedAt: '2026-02-01T10:00:02.000Z' }),
        { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: '2026-02-01T10:00:04.000Z' } },
      ]),
    ).toBeNull();
  });
});
