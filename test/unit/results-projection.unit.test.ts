import { describe, expect, it } from 'vitest';
import { foldResultView } from '../../application/results/result-view.js';
import { renderStream, type RenderEvent } from '../../domain/renders/render-events.js';
import { resultsProjection } from '../../infrastructure/projections/results-projection.js';
import { ResultRow } from '../../infrastructure/read-models/entities.js';
import type { DocumentSource } from '../../infrastructure/projections/document-projection.js';
import { foldBatch } from '../../infrastructure/projections/memory-tables.js';
import { on, projectionSpec, recorder, rows } from '../support/projection-spec.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const orgId = 'org-1';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const spec = () => projectionSpec(resultsProjection, { orgId });

const storageKey = `${orgId}/source/card.png`;
const requested = (requestId: string, second = 0) => on(renderStream(requestId), renderRequested({ requestId, orgId, requestedAt: at(second) }));
const completed = (requestId: string, cached = false) =>
  on(renderStream(requestId), renderCompleted({ requestId, completedAt: at(1), storageKey, bytes: 2048, cached, sourceRequestId: cached ? 'source' : null }));
/** A cache hit as it is recorded now: one event; `requested` + `completed(.., true)` is the form of older logs. */
const servedFromCache = (requestId: string, second = 2) => {
  const { data } = renderRequested({ requestId, orgId, requestedAt: at(second), credits: 0 });
  const { requestId: _requestId, cached: _cached, sourceRequestId: _source, completedAt: _completedAt, ...file } = renderCompleted({ requestId, completedAt: at(1), storageKey, bytes: 2048 }).data;
  return on(renderStream(requestId), { type: 'RenderServedFromCache', data: { ...data, file, sourceRequestId: 'source', completedAt: at(1) } });
};
const deleted = (requestId: string) => on(renderStream(requestId), { type: 'ResultDeleted', data: { requestId, deletedAt: at(5) } });

const result = (requestId: string, fields: Partial<ResultRow>) => expect.objectContaining({ requestId, orgId, ...fields });

describe('results projection', () => {
  it('RenderRequested inserts a pending result; RenderCompleted gives it its file', async () => {
    await spec()
      .given(requested('r1'))
      .when(completed('r1'))
      .then(
        rows(ResultRow, [
          result('r1', { status: 'done', storageKey, bytes: 2048, cached: false, deleted: false, fileDeleted: false, completedAt: new Date(at(1)), templateId: 'tpl-1', webhook: null }),
        ]),
      );
  });

  it('deleting the render that stored a file takes the file from every cache hit that shares it', async () => {
    await spec()
      .given(requested('source'), completed('source'), requested('hit', 2), completed('hit', true), requested('other', 3))
      .when(deleted('source'))
      .then(
        rows(ResultRow, [
          result('source', { deleted: true, fileDeleted: true }),
          result('hit', { deleted: false, fileDeleted: true, cached: true }),
          result('other', { deleted: false, fileDeleted: false, storageKey: null }),
        ]),
      );
  });

  it('a cache hit of one event makes the same row as the two events older logs hold for it', async () => {
    const hitRow = result('hit', {
      status: 'done',
      cached: true,
      credits: 0,
      storageKey,
      bytes: 2048,
      dataFrom: null,
      failureReason: null,
      createdAt: new Date(at(2)),
      completedAt: new Date(at(1)),
      deleted: false,
      fileDeleted: false,
    });
    await spec().given().when(servedFromCache('hit')).then(rows(ResultRow, [hitRow]));
    await spec()
      .given()
      .when(on(renderStream('hit'), renderRequested({ requestId: 'hit', orgId, requestedAt: at(2), credits: 0 })), completed('hit', true))
      .then(rows(ResultRow, [hitRow]));
  });

  it('deleting the render that stored a file takes it from a cache hit of one event too', async () => {
    await spec()
      .given(requested('source'), completed('source'), servedFromCache('hit'))
      .when(deleted('source'))
      .then(rows(ResultRow, [result('source', { deleted: true, fileDeleted: true }), result('hit', { deleted: false, fileDeleted: true, cached: true })]));
  });

  it('reads no row for results a batch starts, and reads those it continues', async () => {
    const loaded: string[] = [];
    const source: DocumentSource = {
      load: async (_entity, ids) => {
        loaded.push(...ids);
        return new Map();
      },
      find: async () => new Map(),
    };
    const recorded = recorder(orgId);
    const [changes] = await foldBatch(resultsProjection, [servedFromCache('hit'), requested('r2'), completed('r2'), completed('r3')].map(recorded), source);
    expect(loaded).toEqual(['r3']);
    expect([...(changes?.upserts.keys() ?? [])].sort()).toEqual(['hit', 'r2']);
  });

  it('finds the cache hits among rows of the same batch too', async () => {
    await spec()
      .given()
      .when(requested('source'), completed('source'), requested('hit', 2), completed('hit', true), deleted('source'))
      .then(rows(ResultRow, [result('source', { deleted: true, fileDeleted: true }), result('hit', { fileDeleted: true })]));
  });

  it('deleting a cache hit leaves the file to the others', async () => {
    await spec()
      .given(requested('source'), completed('source'), requested('hit', 2), completed('hit', true))
      .when(deleted('hit'))
      .then(rows(ResultRow, [result('source', { deleted: false, fileDeleted: false }), result('hit', { deleted: true, fileDeleted: false })]));
  });

  it('video progress never goes back and stops once the render finished', async () => {
    const progressed = (framesDone: number) => on(renderStream('video'), { type: 'RenderProgressed', data: { requestId: 'video', framesDone, framesTotal: 100, at: at(1) } });
    await spec()
      .given(on(renderStream('video'), renderRequested({ requestId: 'video', orgId, requestedAt: at(0), spec: { format: 'mp4', duration: 4000, fps: 25 } })), progressed(50))
      .when(progressed(30), on(renderStream('video'), renderCompleted({ requestId: 'video', completedAt: at(2) })), progressed(90))
      .then(rows(ResultRow, [result('video', { status: 'done', framesDone: 50, framesTotal: 100 })]));
  });

  it('a late outcome changes nothing: the first one counts, as in the view folded from the stream', async () => {
    const late = on(renderStream('r1'), { type: 'RenderFailed', data: { requestId: 'r1', reason: 'late', failedAt: at(3) } });
    await spec()
      .given(requested('r1'), completed('r1'))
      .when(late)
      .then(rows(ResultRow, [result('r1', { status: 'done', failureReason: null, credits: 1, completedAt: new Date(at(1)) })]));
  });

  it('a deleted result keeps its row, which goes on recording webhook deliveries, while its view is gone', async () => {
    const url = 'https://hooks.example.com/r';
    const stream: RenderEvent[] = [
      renderRequested({ requestId: 'r1', orgId, requestedAt: at(0), webhookUrl: url }),
      renderCompleted({ requestId: 'r1', completedAt: at(1) }),
      { type: 'ResultDeleted', data: { requestId: 'r1', deletedAt: at(2) } },
      { type: 'WebhookDelivered', data: { requestId: 'r1', deliveryId: 'd1', url, attempts: 1, statusCode: 200, deliveredAt: at(3) } },
    ];
    expect(foldResultView(stream)).toBeNull();
    await spec()
      .given()
      .when(...stream.map((event) => on(renderStream('r1'), event)))
      .then(rows(ResultRow, [result('r1', { deleted: true, webhook: expect.objectContaining({ status: 'delivered', attempts: 1 }) })]));
  });

  it('a row holds exactly the view folded from its stream, and whether it was deleted or lost its file', async () => {
    const url = 'https://hooks.example.com/video';
    const stream: RenderEvent[] = [
      renderRequested({ requestId: 'video', orgId, requestedAt: at(0), webhookUrl: url, spec: { format: 'mp4', duration: 4000, fps: 25 } }),
      { type: 'RenderProgressed', data: { requestId: 'video', framesDone: 40, framesTotal: 100, at: at(1) } },
      renderCompleted({ requestId: 'video', completedAt: at(2), storageKey, contentType: 'video/mp4' }),
      { type: 'WebhookDeliveryFailed', data: { requestId: 'video', deliveryId: 'd1', url, attempt: 1, statusCode: 500, error: 'down', failedAt: at(3) } },
    ];
    const view = foldResultView(stream) ?? expect.fail('the stream shows a result');
    await spec()
      .given()
      .when(...stream.map((event) => on(renderStream('video'), event)))
      .then(rows(ResultRow, [{ ...view, webhook: view.webhook ?? null, deleted: false, fileDeleted: false }]));
  });

  it('events of a request it never saw change nothing', async () => {
    await spec().given().when(completed('unknown'), deleted('unknown')).then();
  });
});
