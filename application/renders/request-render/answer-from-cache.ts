import { isAsynchronousFormat } from '../../../domain/renders/output-formats.js';
import type { RenderRequested } from '../../../domain/renders/render-events.js';
import type { ResultLinks } from '../../ports/file-storage.js';
import type { ResultReadModel } from '../../ports/read-models.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { hitRequest } from '../hit-data.js';
import { resultHref } from '../result-href.js';
import { recordCachedRender } from './record-cached-render.js';
import type { RenderAnswer } from './render-input.js';

/**
 * What an answer from the render cache leaves behind: a render of its own (listed, audited), or, for
 * an image shown at a public URL and viewed again and again, nothing: the view reads the stored file.
 */
export type CacheHits = 'recorded' | 'unrecorded';

export interface AnswerFromCacheDeps extends CommandDeps {
  readonly results: Pick<ResultReadModel, 'findCached'>;
  readonly links: ResultLinks;
}

/** A recorded cache hit is a render of its own (listed, audited) that reuses the stored file and costs nothing. */
export const answerFromCache = async (deps: AnswerFromCacheDeps, context: RequestContext, requested: RenderRequested['data'], hits: CacheHits): Promise<RenderAnswer | null> => {
  if (!requested.cacheKey) return null;
  const hit = await deps.results.findCached(context.caller.orgId, requested.cacheKey);
  if (!hit) return null;
  if (hits === 'unrecorded') {
    const source = { ...requested, requestId: hit.requestId };
    return { requestId: hit.requestId, href: resultHref(deps.links, source), cached: true, storageKey: hit.storageKey, contentType: hit.contentType };
  }
  const request = hitRequest(requested, hit.dataFrom);
  const file = {
    storageKey: hit.storageKey,
    fileName: request.spec.fileName,
    contentType: hit.contentType,
    bytes: hit.bytes,
    width: hit.width ?? request.spec.width,
    height: hit.height ?? request.spec.height,
  };
  await recordCachedRender(deps, request, { file, sourceRequestId: hit.requestId }, context);
  return {
    requestId: request.requestId,
    href: resultHref(deps.links, request),
    cached: true,
    // A video from the cache is done at once; it is still answered as the asynchronous render it is.
    ...(isAsynchronousFormat(request.spec.format) ? { status: 'done' as const } : {}),
    storageKey: hit.storageKey,
    contentType: hit.contentType,
  };
};
