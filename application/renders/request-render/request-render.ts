import { hash } from 'node:crypto';
import { cacheMaterial } from '../../../domain/renders/cache-key.js';
import { isAsynchronousFormat } from '../../../domain/renders/output-formats.js';
import { renderCost } from '../../../domain/renders/pricing.js';
import type { RenderRequested } from '../../../domain/renders/render-events.js';
import { DomainError, validationError } from '../../../domain/shared/errors.js';
import { assertJsonFieldSizes } from '../../../domain/shared/json-size.js';
import type { FileStorage, ResultLinks } from '../../ports/file-storage.js';
import type { UrlGuard } from '../../ports/page-capture.js';
import type { AccountReadModel, ProjectionProgress, ResultReadModel, TemplateReadModel } from '../../ports/read-models.js';
import type { RenderOrchestrator } from '../../ports/render-orchestrator.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { assertWebhookUrlAllowed } from '../../webhooks/webhook-url.js';
import { hitRequest } from '../hit-data.js';
import { assertAccountAdmits, awaitOutcome, createWaitingRoom, startRecordedRequest } from '../render-admission.js';
import { resultHref } from '../result-href.js';
import { recordCachedRender } from './record-cached-render.js';
import { recordRenderRequest } from './record-render-request.js';
import type { RenderAnswer, RenderInput } from './render-input.js';
import { createKnownBadRenders } from './known-bad-renders.js';
import { buildSpec } from './render-spec.js';
import { templateToRender } from './template-to-render.js';

export interface RequestRenderDeps extends CommandDeps {
  readonly templates: TemplateReadModel;
  readonly results: ResultReadModel;
  readonly accounts: AccountReadModel;
  readonly orchestrator: RenderOrchestrator;
  readonly progress: ProjectionProgress;
  readonly links: ResultLinks;
  readonly storage: FileStorage;
  /** Refuses a webhookUrl on a private, loopback or link-local address before anything is written or charged. */
  readonly urls: UrlGuard;
  /** How long a synchronous render may take before the caller gets a 503 (the render goes on). */
  readonly syncTimeoutMs: number;
  /** Synchronous renders waiting at once; one more is refused with 503 instead of queueing without bound. */
  readonly maxPendingSyncRenders: number;
  /**
   * Begins a synchronous render in the process whose worker will run its workflow, while its request
   * is recorded and the workflow starts and charges (renders-ahead.ts); absent where this process
   * renders nothing. Answers how to throw it away when the request goes no further.
   */
  readonly renderAhead?: (request: RenderRequested['data']) => () => void;
}

/**
 * What an answer from the render cache leaves behind: a render of its own (listed, audited), or, for
 * an image shown at a public URL and viewed again and again, nothing: the view reads the stored file.
 */
export type CacheHits = 'recorded' | 'unrecorded';

/**
 * Requesting a render (POST /api/v2/render, v1 and GET /img too): validate, choose the template
 * version, pin the spec, answer from the render cache when an identical render exists, else check
 * credits and room, record the request and start its workflow; a synchronous render is answered with
 * its file, the rest at once.
 */
export const createRequestRender = (deps: RequestRenderDeps) => {
  const waitingRoom = createWaitingRoom(deps.maxPendingSyncRenders);
  const knownBadRenders = createKnownBadRenders({ clock: deps.clock });

  /** A recorded cache hit is a render of its own (listed, audited) that reuses the stored file and costs nothing. */
  const answerFromCache = async (context: RequestContext, requested: RenderRequested['data'], hits: CacheHits): Promise<RenderAnswer | null> => {
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

  return async (context: RequestContext, input: RenderInput, hits: CacheHits = 'recorded'): Promise<RenderAnswer> => {
    requireScope(context, 'render');
    assertJsonFieldSizes({ data: input.data, metadata: input.metadata });
    await assertWebhookUrlAllowed(deps.urls, input.webhookUrl);
    const latest = await deps.templates.get(context.caller.orgId, input.template);
    if (!latest) throw validationError(`Template ${input.template} not found`, [`template: no template ${input.template}`]);
    const template = await templateToRender(deps.eventStore, latest, input.templateVersion);

    const now = deps.clock.now();
    const requestId = deps.ids.next();
    const spec = buildSpec(template, input, requestId);
    const useCache = input.cache !== false;
    const assetsVersion = (await deps.accounts.getAccount(context.caller.orgId))?.assetsVersion ?? 0;
    // What makes two renders the same file; the cache keys on it, and so does the record of hostile ones (cache or not).
    const sameRenderKey = hash('sha256', cacheMaterial(context.caller.orgId, spec, input.version ?? null, assetsVersion), 'hex');
    const knownBad = knownBadRenders.reasonFor(sameRenderKey);
    if (knownBad !== undefined) {
      throw validationError(`Render failed: ${knownBad}`, [`${knownBad} (the same render failed moments ago; change the template or its data, or wait)`]);
    }
    const cacheKey = useCache ? sameRenderKey : null;
    const requested: RenderRequested['data'] = {
      requestId,
      orgId: context.caller.orgId,
      request: { ...input },
      spec,
      cacheKey,
      credits: renderCost(spec.format, spec.duration, false),
      batchName: input.batchName ?? null,
      metadata: input.metadata ?? null,
      webhookUrl: input.webhookUrl ?? null,
      requestedAt: now.toISOString(),
      dataFrom: null,
    };

    const cached = await answerFromCache(context, requested, hits);
    if (cached) {
      // The file exists already, yet the client asked to be told by webhook like for any render.
      if (requested.webhookUrl !== null && hits === 'recorded') await deps.orchestrator.startWebhook({ requestId });
      return cached;
    }

    await assertAccountAdmits(deps.accounts, context.caller.orgId, requested.credits, requested.requestedAt.slice(0, 10));
    const asynchronous = isAsynchronousFormat(spec.format);
    const sync = !input.webhookUrl && !asynchronous;
    if (sync) waitingRoom.assertRoom();

    // Begun before the request's append (~2 ms at one client) rather than after it: nothing durable
    // happens ahead, and a request that goes no further throws its render away.
    const abandonAhead = sync ? deps.renderAhead?.(requested) : undefined;
    try {
      await recordRenderRequest(deps, requested, context);
      // Videos are always asynchronous (spec rules 4-5): the client polls the result or waits for its webhook.
      await startRecordedRequest(requestId, () =>
        asynchronous ? deps.orchestrator.startVideo({ requestId, webhook: Boolean(input.webhookUrl) }) : deps.orchestrator.start({ requestId, webhook: !sync }),
      );
    } catch (error) {
      abandonAhead?.();
      throw error;
    }
    const href = resultHref(deps.links, requested);
    if (asynchronous) return { requestId, href, status: 'pending' };
    if (!sync) return { requestId, href };

    try {
      const file = await waitingRoom.wait(() => awaitOutcome(deps, requestId, deps.syncTimeoutMs));
      return { requestId, href, storageKey: file.storageKey, contentType: file.contentType };
    } catch (error) {
      // The request's fault, found by rendering it: the same render would fail again.
      if (error instanceof DomainError && error.code === 'validation') knownBadRenders.remember(sameRenderKey, error.details[0] ?? error.message);
      throw error;
    }
  };
};
