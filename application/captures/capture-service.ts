import { CAPTURE_CREDITS, captureSpecOf, type CaptureInput } from '../../domain/renders/capture-request.js';
import type { CaptureRequested } from '../../domain/renders/capture-events.js';
import type { ResultLinks } from '../ports/file-storage.js';
import type { UrlGuard } from '../ports/page-capture.js';
import type { AccountReadModel, ProjectionProgress } from '../ports/read-models.js';
import type { RenderOrchestrator } from '../ports/render-orchestrator.js';
import { assertAccountAdmits, awaitOutcome, createWaitingRoom, startRecordedRequest } from '../renders/render-admission.js';
import { resultHref } from '../renders/result-href.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { requestCapture } from './request-capture/request-capture.js';
import type { RequestContext } from '../shared/request-context.js';
import { requireScope } from '../shared/scopes.js';
import { testExpiry } from '../../domain/renders/test-mode.js';

/** What the client may add to either capture: the outcome by webhook instead of waiting for it. */
export interface CaptureDelivery {
  readonly webhookUrl?: string;
}

export type CaptureRequestInput = CaptureInput & CaptureDelivery;

/** Spec: `{ requestId, href, request }`, the request as the client sent it. */
export interface CaptureAnswer {
  readonly requestId: string;
  readonly href: string;
  readonly request: Record<string, unknown>;
}

export interface CaptureServiceDeps extends CommandDeps {
  readonly accounts: AccountReadModel;
  readonly orchestrator: RenderOrchestrator;
  readonly progress: ProjectionProgress;
  readonly links: ResultLinks;
  readonly urls: UrlGuard;
  /** How long a synchronous capture may take before the caller gets a 503 (the capture goes on). */
  readonly syncTimeoutMs: number;
  readonly maxPendingSyncCaptures: number;
}

export type CaptureService = ReturnType<typeof createCaptureService>;

/**
 * Screenshots and PDFs of web pages. The URL is checked (scheme, and where its host resolves to)
 * before anything is written or charged; the page's own requests are checked again as it loads.
 */
export const createCaptureService = (deps: CaptureServiceDeps) => {
  const waitingRoom = createWaitingRoom(deps.maxPendingSyncCaptures);

  return {
    async capture(context: RequestContext, input: CaptureRequestInput): Promise<CaptureAnswer> {
      requireScope(context, 'render');
      const { kind: _kind, ...request } = input;
      await deps.urls.assertUrlAllowed(input.url);
      if (input.webhookUrl !== undefined) await deps.urls.assertUrlAllowed(input.webhookUrl);
      const now = deps.clock.now();
      const requestId = deps.ids.next();
      const test = context.caller.test === true;
      const capture = captureSpecOf(input, requestId);
      const requested: CaptureRequested['data'] = {
        requestId,
        orgId: context.caller.orgId,
        request,
        capture: test ? { ...capture, expires: testExpiry(capture.expires) } : capture,
        credits: test ? 0 : CAPTURE_CREDITS,
        webhookUrl: input.webhookUrl ?? null,
        requestedAt: now.toISOString(),
        ...(test ? { test: true as const } : {}),
      };
      await assertAccountAdmits(deps.accounts, context.caller.orgId, requested.credits, requested.requestedAt.slice(0, 10));
      const sync = !input.webhookUrl;
      if (sync) waitingRoom.assertRoom();

      await requestCapture(deps, requested, context);
      await startRecordedRequest(requestId, () => deps.orchestrator.startCapture({ requestId, webhook: !sync }));
      if (sync) await waitingRoom.wait(() => awaitOutcome(deps, requestId, deps.syncTimeoutMs));
      return { requestId, href: resultHref(deps.links, requested), request };
    },
  };
};
