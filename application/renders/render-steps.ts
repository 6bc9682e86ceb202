import { DomainError } from '../../domain/shared/errors.js';
import type { RenderRequested, StoredFile } from '../../domain/renders/render-events.js';
import { resultFileOf, type AcceptedRequest } from '../../domain/renders/render.js';
import { isVideoFormat } from '../../domain/templates/template-settings.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { Metrics } from '../ports/metrics.js';
import type { AssetReadModel, ProjectionProgress } from '../ports/read-models.js';
import type { FailedOutcome } from '../ports/render-orchestrator.js';
import type { RenderedFile, RenderEngine, TemplateMerger } from '../ports/render-engine.js';
import type { CanvasRenderer } from '../ports/canvas-renderer.js';
import { createCredits } from '../credits/credits.js';
import { completeRender } from './complete-render/complete-render.js';
import { failRender } from './fail-render/fail-render.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { settledMemo } from '../shared/settled-memo.js';
import { withTestWatermark } from './test-watermark.js';
import { loadRenderStream } from './load-render.js';
import { measuredRender } from './render-metrics.js';
import { createRendersAhead } from './produce-render/renders-ahead.js';
import { createTemplatePages } from './produce-render/template-pages.js';

export interface RenderStepsDeps extends CommandDeps {
  readonly storage: FileStorage;
  readonly engine: RenderEngine;
  readonly merger: TemplateMerger;
  readonly canvas: CanvasRenderer;
  readonly metrics: Metrics;
  readonly assets: Pick<AssetReadModel, 'listFonts'>;
  /** Renders begun ahead of their workflows kept at once (renders-ahead.ts); 0 or absent: none. */
  readonly maxRendersAhead?: number;
  /** The read models this process keeps, which a caller waiting here waits for; absent where it keeps none. */
  readonly readModelsHere?: ProjectionProgress;
}

export type RenderSteps = ReturnType<typeof createRenderSteps>;

/** Where the worker's steps store a request's file; everyone else learns it from the outcome they record and return. */
export const storageKeyOf = (request: AcceptedRequest) => `${request.orgId}/${request.requestId}/${resultFileOf(request).fileName}`;

/** Stores a request's file where its steps store it, and describes it as its outcome records it. */
export const storeFile = async (storage: FileStorage, request: AcceptedRequest, fileName: string, file: RenderedFile): Promise<StoredFile> => {
  const storageKey = storageKeyOf(request);
  await storage.put(storageKey, file.content, file.contentType);
  return { storageKey, fileName, contentType: file.contentType, bytes: file.content.length, width: file.width, height: file.height, ...(file.fit ? { fit: file.fit } : {}) };
};

/**
 * A request is known from its first step until its outcome is recorded. The bound is a backstop for
 * requests whose workflows moved to another worker; a request's data may be megabytes.
 */
const ACCEPTED_REQUESTS_KEPT = 64;

/** Who waits for a render: a client on an open connection, or nobody (its outcome is recorded, or told by webhook). */
type Waiting = 'client' | 'nobody';
/**
 * A render begun ahead waits this long for its workflow to take it: past the wait of any caller
 * (the synchronous timeout), so that only a workflow that never comes here leaves one unused.
 */
const RENDER_AHEAD_KEPT_MS = 60_000;

/**
 * The steps of a render workflow, each safe to retry: charging and recording are idempotent by
 * request id in their deciders, and storing writes the same key again.
 */
export const createRenderSteps = (deps: RenderStepsDeps) => {
  /**
   * The stream of an accepted request of either kind (charging and recording work alike for
   * captures) as the steps first read it. Its request never changes once accepted; the rest of its
   * state is what the completion is decided against, and appended at that revision: should the
   * stream have moved on meanwhile, the conflict makes it read the stream afresh.
   */
  const acceptedStream = settledMemo((requestId: string) => loadRenderStream(deps.eventStore, requestId), {
    capacity: ACCEPTED_REQUESTS_KEPT,
    keyOf: (requestId) => requestId,
  });
  const loadAccepted = async (requestId: string): Promise<AcceptedRequest> => (await acceptedStream(requestId)).state.request;

  const loadRequest = async (requestId: string): Promise<RenderRequested['data']> => {
    const request = await loadAccepted(requestId);
    if (!('spec' in request)) throw new DomainError('validation', `Request ${requestId} captures a web page; it renders no template`);
    return request;
  };

  const credits = createCredits(deps);

  const pages = createTemplatePages(deps);

  /** The pinned template with the request's data, rendered; stored by `produce` alone. */
  const renderOf = (request: RenderRequested['data'], waiting: Waiting): Promise<RenderedFile> => {
    const { spec } = request;
    const format = spec.format;
    if (isVideoFormat(format)) {
      return Promise.reject(new DomainError('validation', 'video renders are produced by the video workflow'));
    }
    return measuredRender(deps.metrics, { kind: 'image', format }, async () => {
      const template = await pages.templateAt(spec.templateId, spec.templateRevision);
      // An html template printed is a document of as many pages as it needs; a canvas is one design.
      const paged = format === 'pdf' && spec.editor === 'html-editor' ? { paged: true, title: spec.templateName } : {};
      const size = { width: spec.width, height: spec.height, scaleFactor: spec.scaleFactor, waitTime: spec.waitTime, ...paged };
      const page = await pages.pageOf(template, spec.data, size);
      const document = request.test ? withTestWatermark(page) : page;
      return deps.engine.render(document, { tenant: request.orgId, format, quality: spec.quality, crop: spec.crop, pdfStandard: spec.pdfStandard, background: waiting === 'nobody' });
    });
  };

  const ahead = createRendersAhead<RenderedFile>({ capacity: deps.maxRendersAhead ?? 0, keepMs: RENDER_AHEAD_KEPT_MS, ended: deps.metrics.renderAheadEnded });

  /** Renders the pinned template with the request's data (or takes the render begun ahead) and stores the file. */
  const produce = async (requestId: string, waiting: Waiting): Promise<StoredFile> => {
    const request = await loadRequest(requestId);
    return storeFile(deps.storage, request, request.spec.fileName, await (ahead.take(requestId) ?? renderOf(request, waiting)));
  };

  /**
   * A recorded outcome's step returns once this process's read models show it, where it keeps them:
   * the caller is answered when they do, and the workflow's next turn (its activation, the server
   * writing the task's end) would otherwise take the cores from the projection statements it waits
   * for. A webhook sent after it finds the result listed here too.
   */
  const readModelsShow = async (position: number | null) => {
    // As long as a caller waits for them at most (the read models' own bound).
    if (position != null) await deps.readModelsHere?.waitFor(position);
  };

  return {
    loadRequest,
    templateAt: pages.templateAt,
    pageOf: pages.pageOf,

    charge: async (requestId: string) => {
      await credits.charge(await loadAccepted(requestId));
    },

    refund: async (requestId: string) => {
      await credits.refund(await loadAccepted(requestId));
    },

    /**
     * Begins rendering a request as it is being recorded, before its workflow starts and charges,
     * when this process will run that workflow (renders-ahead.ts); `produce` takes the render.
     * Answers how to throw it away, for a request that is not recorded or whose workflow does not start.
     */
    renderAhead: (request: RenderRequested['data']) => {
      ahead.begin(request.requestId, () => renderOf(request, 'client'));
      return () => ahead.drop(request.requestId);
    },

    /** For renders nobody waits for on an open connection (a batch's rows, renders told by webhook). */
    produce: (requestId: string) => produce(requestId, 'nobody'),

    /** For a client that waits: the render begun ahead for it, if any, is taken (renders-ahead.ts). */
    produceNow: (requestId: string) => produce(requestId, 'client'),

    /** Returns the log position of the outcome, so whoever waits for the request can wait for its read models too. */
    async complete(requestId: string, file: StoredFile) {
      const stream = await acceptedStream(requestId);
      const { position, recorded } = await completeRender(deps, stream.state.request, file, stream);
      acceptedStream.forget(requestId);
      if (recorded) await readModelsShow(position);
      // Failed by someone else meanwhile (the pending repair, for a workflow whose start came after its
      // grace): its outcome stands, so what this workflow charged goes back and its file is not kept.
      else if ((await loadRenderStream(deps.eventStore, requestId)).state.status === 'failed') {
        await credits.refund(stream.state.request);
        await deps.storage.delete(file.storageKey);
      }
      return position;
    },

    /** Records the failure's reason; the workflow returns the whole of it to the caller. Returns its log position. */
    fail: async (requestId: string, failure: FailedOutcome) => {
      const { position, recorded } = await failRender(deps, await loadAccepted(requestId), failure.reason);
      acceptedStream.forget(requestId);
      // A request refused before its render (no credits) leaves the render begun for it unused.
      ahead.drop(requestId);
      if (recorded) await readModelsShow(position);
      return position;
    },
  };
};
