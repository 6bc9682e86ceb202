import { isRenderEvent, renderStream, type RenderEvent } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { DomainError, notFound } from '../../domain/shared/errors.js';
import type { Readable } from 'node:stream';
import type { ByteRange, ByteRangeRequest, FileStorage, ResultLinks } from '../ports/file-storage.js';
import type { ProjectionProgress, ResultReadModel, ResultView } from '../ports/read-models.js';
import { deleteResult } from './delete-result/delete-result.js';
import type { CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';
import { readEvents } from '../shared/stream-reads.js';
import { requireScope } from '../shared/scopes.js';
import { toPage, toResultDetail, toResultListItem, type PageDto, type ResultDetailDto, type ResultListItemDto } from './result-dto.js';
import { foldResultView } from './result-view.js';

export interface ResultListInput {
  readonly templateId?: string;
  readonly batchName?: string;
  /** Zero-based. */
  readonly page: number;
  readonly size: number;
}

export interface ResultServiceDeps extends CommandDeps {
  readonly results: ResultReadModel;
  readonly progress: ProjectionProgress;
  readonly storage: FileStorage;
  readonly links: ResultLinks;
}

/** How a download is asked for, beyond the link: the HTTP edge parses its headers into this. */
export interface FileReadConditions {
  readonly range?: ByteRangeRequest;
  /** True when the client already holds the version with this entity tag (If-None-Match). */
  readonly isFresh?: (etag: string) => boolean;
}

export type ResultFile = {
  readonly contentType: string;
  readonly fileName: string;
  /** Of the whole file. */
  readonly size: number;
  readonly etag: string;
} & (
  /** `range` null: the whole file. */
  | { readonly kind: 'content'; readonly stream: Readable; readonly range: ByteRange | null }
  | { readonly kind: 'not-modified' }
  | { readonly kind: 'range-not-satisfiable' }
);

export type ResultService = ReturnType<typeof createResultService>;

export const createResultService = (deps: ResultServiceDeps) => {
  const hrefOf = (view: ResultView) => deps.links.href(view.requestId, view.fileName, view.expiresAt);

  const readRender = (requestId: string): Promise<RecordedEvent<RenderEvent>[]> => readEvents(deps.eventStore, renderStream(requestId), isRenderEvent);

  /**
   * The read model answers first. Renders do not wait for projections on their hot path, so a row
   * that is missing or still pending may just lag behind its stream: the stream then has the answer.
   * A render the stream shows ended is answered once the read models have it too: a client told
   * "done" may repeat the request at once, and the cache lookup reads the read model.
   */
  const findView = async (orgId: string, requestId: string): Promise<ResultView | null> => {
    const row = await deps.results.get(orgId, requestId);
    if (row && row.status !== 'pending') return row;
    const events = await readRender(requestId);
    const folded = foldResultView(events);
    if (!folded || folded.orgId !== orgId) return null;
    const last = events.at(-1);
    if (folded.status !== 'pending' && last) await deps.progress.waitFor(last.position);
    return folded;
  };

  return {
    async list(context: RequestContext, input: ResultListInput): Promise<PageDto<ResultListItemDto>> {
      requireScope(context, 'render');
      const { items, total } = await deps.results.list(context.caller.orgId, input);
      return toPage(
        items.map((view) => toResultListItem(view, hrefOf(view))),
        input.page,
        input.size,
        total,
      );
    },

    async get(context: RequestContext, requestId: string): Promise<ResultDetailDto> {
      requireScope(context, 'render');
      const view = await findView(context.caller.orgId, requestId);
      if (!view) throw notFound('Result');
      return toResultDetail(view, hrefOf(view));
    },

    /** Records the deletion, then removes the file it owned. */
    delete: (context: RequestContext, requestId: string): Promise<void> => deleteResult(deps, context, requestId),

    /**
     * The file behind an href, for anyone holding the link (no API key). Read from the stream, not
     * the read model, so a link works the moment its render answered.
     */
    async openFile(
      requestId: string,
      fileName: string,
      query: { expires?: string; signature?: string },
      conditions: FileReadConditions = {},
    ): Promise<ResultFile> {
      const view = foldResultView(await readRender(requestId));
      if (!view || view.status !== 'done' || view.storageKey === null || view.fileName !== fileName) throw notFound('File');
      const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
      if (!deps.links.verify(requestId, fileName, query, nowSeconds, view.expiresAt !== null)) {
        throw new DomainError('forbidden', 'This link is not valid: its signature is missing or wrong, or it has expired', [
          'the link needs a valid, unexpired signature',
        ]);
      }
      const described = { contentType: view.contentType ?? 'application/octet-stream', fileName };
      // A client revalidating its copy is answered from the file's metadata, without reading any content.
      if (conditions.isFresh) {
        const info = await deps.storage.stat(view.storageKey);
        if (!info) throw notFound('File');
        if (conditions.isFresh(info.etag)) return { ...described, ...info, kind: 'not-modified' };
      }
      const file = await deps.storage.open(view.storageKey, conditions.range);
      if (!file) throw notFound('File');
      if ('unsatisfiable' in file) return { ...described, size: file.size, etag: file.etag, kind: 'range-not-satisfiable' };
      return { ...described, ...file, kind: 'content' };
    },
  };
};
