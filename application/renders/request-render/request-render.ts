import { isAsynchronousFormat } from '../../../domain/renders/output-formats.js';
import type { RenderRequested } from '../../../domain/renders/render-events.js';
import { DomainError, validationError } from '../../../domain/shared/errors.js';
import type { FileStorage, ResultLinks } from '../../ports/file-storage.js';
import type { UrlGuard } from '../../ports/page-capture.js';
import type { AccountReadModel, ProjectionProgress, ResultReadModel, TemplateReadModel } from '../../ports/read-models.js';
import type { RenderOrchestrator } from '../../ports/render-orchestrator.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { assertWebhookUrlAllowed } from '../../webhooks/webhook-url.js';
import { assertAccountAdmits, awaitOutcome, createWaitingRoom, startRecordedRequest } from '../render-admission.js';
import { resultHref } from '../result-href.js';
import { answerFromCache, type CacheHits } from './answer-from-cache.js';
import { recordRenderRequest } from './record-render-request.js';
import type { RenderAnswer, RenderInput } from './render-input.js';
import { createKnownBadRenders } from './known-bad-renders.js';
import { prepareRenderRequest } from './prepare-render-request.js';

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
 * Requesting a render (POST /api/v2/render, v1 and GET /img too): validate, choose the template
 * version, pin the spec, answer from the render cache when an identical render exists, else check
 * credits and room, record the request and start its workflow; a synchronous render is answered with
 * its file, the rest at once.
 */
export const createRequestRender = (deps: RequestRenderDeps) => {
  const waitingRoom = createWaitingRoom(deps.maxPendingSyncRenders);
  const knownBadRenders = createKnownBadRenders({ clock: deps.clock });

  return async (context: RequestContext, input: RenderInput, hits: CacheHits = 'recorded'): Promise<RenderAnswer> => {
    requireScope(context, 'render');
    await assertWebhookUrlAllowed(deps.urls, input.webhookUrl);
    const { requested, sameRenderKey } = await prepareRenderRequest(deps, context, input, deps.ids.next());
    const { requestId, spec } = requested;
    const knownBad = knownBadRenders.reasonFor(sameRenderKey);
    if (knownBad !== undefined) {
      throw validationError(`Render failed: ${knownBad}`, [`${knownBad} (the same render failed moments ago; change the template or its data, or wait)`]);
    }

    const cached = await answerFromCache(deps, context, requested, hits);
    if (cached) {
      // The file exists already, yet the client asked to be told by webhook like for any render.
      if (requested.webhookUrl !== null && hits === 'recorded') await deps.orchestrator.startWebhook({ requestId });
      return cached;
    }

    await assertAccountAdmits(deps.accounts, context.caller.orgId, requested.credits, requested.requestedAt.slice(0, 10));
    const asynchronous = isAsynchronousFormat(spec.format);
    const sync = !input.webhookUrl && !asynchronous;
    if (sync) waitingRoom.assertRoom();

    // Begun before the request's append (a database round trip) rather than after it: nothing durable
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
