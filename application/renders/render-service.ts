import { createHash } from 'node:crypto';
import { DomainError, validationError } from '../../domain/shared/errors.js';
import { assertJsonFieldSizes } from '../../domain/shared/json-size.js';
import { cacheMaterial } from '../../domain/renders/cache-key.js';
import type { PdfStandard } from '../../domain/renders/pdf-standards.js';
import { renderCost } from '../../domain/renders/pricing.js';
import type { RenderRequested, RenderSpec } from '../../domain/renders/render-events.js';
import { EMPTY_COMPONENT_DOCUMENT } from '../../domain/templates/components/component-document.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { isAsynchronousFormat, isVideoFormat, outputExtension, type OutputFormat } from '../../domain/renders/output-formats.js';
import { assertRenderableSize, type Fps } from '../../domain/templates/template-settings.js';
import type { FileStorage, ResultLinks } from '../ports/file-storage.js';
import type { UrlGuard } from '../ports/page-capture.js';
import { assertWebhookUrlAllowed } from '../webhooks/webhook-url.js';
import type { AccountReadModel, ProjectionProgress, ResultReadModel, TemplateReadModel, TemplateView } from '../ports/read-models.js';
import type { RenderOrchestrator } from '../ports/render-orchestrator.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { requestCachedRender } from '../requests/request-cached-render.js';
import { requestRender } from '../requests/request-render.js';
import { assertAccountAdmits, awaitOutcome, createWaitingRoom, startRecordedRequest } from './render-admission.js';
import { hitRequest } from './hit-data.js';
import { videoTiming } from './video-spec.js';
import { resultHref } from './result-href.js';
import type { RequestContext } from '../shared/request-context.js';
import { requireScope } from '../shared/scopes.js';

export interface RenderInput {
  readonly template: string;
  readonly data?: Record<string, unknown>;
  readonly fileName?: string;
  readonly webhookUrl?: string;
  readonly version?: string;
  readonly metadata?: Record<string, unknown>;
  readonly batchName?: string;
  readonly cache?: boolean;
  readonly waitTime?: number;
  readonly outputFormat?: OutputFormat;
  readonly duration?: number;
  readonly fps?: Fps;
  readonly expires?: number;
  readonly width?: number;
  readonly height?: number;
  readonly pdfStandard?: PdfStandard;
}

export interface RenderAnswer {
  readonly requestId: string;
  readonly href: string;
  readonly cached?: true;
  /** Only for asynchronous (video) renders: pending, or done when answered from the render cache. */
  readonly status?: 'pending' | 'done';
  /** The stored file, for callers that want the bytes (output=image, GET /img). */
  readonly storageKey?: string;
  readonly contentType?: string;
}

export interface RenderServiceDeps extends CommandDeps {
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
}

export type RenderService = ReturnType<typeof createRenderService>;

const withExtension = (fileName: string, format: OutputFormat) => {
  const extension = outputExtension(format);
  return fileName.toLowerCase().endsWith(extension) ? fileName : `${fileName}${extension}`;
};

/** What every render pins when it is accepted, video or not. */
const commonSpec = (template: TemplateView, input: RenderInput, requestId: string, format: OutputFormat) => ({
  templateId: template.id,
  templateRevision: template.revision,
  templateName: template.name,
  editor: template.editor,
  format,
  width: template.width,
  height: template.height,
  crop: input.width !== undefined || input.height !== undefined ? { width: input.width ?? template.width, height: input.height ?? template.height } : null,
  quality: template.quality,
  scaleFactor: template.scaleFactor,
  data: input.data ?? {},
  waitTime: input.waitTime ?? 0,
  fileName: withExtension(input.fileName ?? requestId, format),
  expires: input.expires ?? null,
});

/** The standard a PDF is to meet, which only a PDF can. */
const pdfStandardOf = (input: RenderInput, format: OutputFormat): Pick<RenderSpec, 'pdfStandard'> => {
  if (input.pdfStandard === undefined) return {};
  if (format !== 'pdf') {
    throw validationError(`pdfStandard applies to pdf renders only; this render is ${format}`, [`pdfStandard: ${input.pdfStandard} needs outputFormat pdf, not ${format}`]);
  }
  return { pdfStandard: input.pdfStandard };
};

const buildSpec = (template: TemplateView, input: RenderInput, requestId: string): RenderSpec => {
  const format = input.outputFormat ?? template.outputFormat;
  const pdfStandard = pdfStandardOf(input, format);
  // Templates stored before the budget existed, and a video asked of an image template, meet it here.
  assertRenderableSize({ width: template.width, height: template.height, scaleFactor: template.scaleFactor, format });
  // Canvas data must name the template's properties with valid values: a 400 now, not a failed render later.
  if (template.editor !== 'html-editor') resolveValues(template.components ?? EMPTY_COMPONENT_DOCUMENT, input.data ?? {});
  if (isVideoFormat(format)) return { ...commonSpec(template, input, requestId, format), ...videoTiming(template, format, input) };
  if (input.duration !== undefined || input.fps !== undefined) throw validationError('duration and fps apply to video renders only');
  return { ...commonSpec(template, input, requestId, format), duration: null, fps: null, ...pdfStandard };
};

export const createRenderService = (deps: RenderServiceDeps) => {
  const waitingRoom = createWaitingRoom(deps.maxPendingSyncRenders);

  /** A cache hit is a render of its own (listed, audited) that reuses the stored file and costs nothing. */
  const answerFromCache = async (context: RequestContext, requested: RenderRequested['data']): Promise<RenderAnswer | null> => {
    if (!requested.cacheKey) return null;
    const hit = await deps.results.findCached(context.caller.orgId, requested.cacheKey);
    if (!hit) return null;
    const request = hitRequest(requested, hit.dataFrom);
    const file = {
      storageKey: hit.storageKey,
      fileName: request.spec.fileName,
      contentType: hit.contentType,
      bytes: hit.bytes,
      width: hit.width ?? request.spec.width,
      height: hit.height ?? request.spec.height,
    };
    await requestCachedRender(deps, request, { file, sourceRequestId: hit.requestId }, context);
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

  return {
    /** The bytes of a finished render, for answers that carry the file itself. */
    async fileOf(answer: RenderAnswer): Promise<{ content: Buffer; contentType: string }> {
      const content = answer.storageKey ? await deps.storage.get(answer.storageKey) : null;
      if (!content || !answer.contentType) throw new DomainError('failed', 'The rendered file is not available', [`requestId ${answer.requestId}`]);
      return { content, contentType: answer.contentType };
    },

    async render(context: RequestContext, input: RenderInput): Promise<RenderAnswer> {
      requireScope(context, 'render');
      assertJsonFieldSizes({ data: input.data, metadata: input.metadata });
      await assertWebhookUrlAllowed(deps.urls, input.webhookUrl);
      const template = await deps.templates.get(context.caller.orgId, input.template);
      if (!template) throw validationError(`Template ${input.template} not found`, [`template: no template ${input.template}`]);

      const now = deps.clock.now();
      const requestId = deps.ids.next();
      const spec = buildSpec(template, input, requestId);
      const useCache = input.cache !== false;
      const assetsVersion = useCache ? ((await deps.accounts.getAccount(context.caller.orgId))?.assetsVersion ?? 0) : 0;
      const cacheKey = useCache ? createHash('sha256').update(cacheMaterial(context.caller.orgId, spec, input.version ?? null, assetsVersion)).digest('hex') : null;
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

      const cached = await answerFromCache(context, requested);
      if (cached) {
        // The file exists already, yet the client asked to be told by webhook like for any render.
        if (requested.webhookUrl !== null) await deps.orchestrator.startWebhook({ requestId });
        return cached;
      }

      await assertAccountAdmits(deps.accounts, context.caller.orgId, requested.credits, requested.requestedAt.slice(0, 10));
      const asynchronous = isAsynchronousFormat(spec.format);
      const sync = !input.webhookUrl && !asynchronous;
      if (sync) waitingRoom.assertRoom();

      await requestRender(deps, requested, context);
      const href = resultHref(deps.links, requested);
      // Videos are always asynchronous (spec rules 4-5): the client polls the result or waits for its webhook.
      if (asynchronous) {
        await startRecordedRequest(requestId, () => deps.orchestrator.startVideo({ requestId, webhook: Boolean(input.webhookUrl) }));
        return { requestId, href, status: 'pending' };
      }
      await startRecordedRequest(requestId, () => deps.orchestrator.start({ requestId, webhook: !sync }));
      if (!sync) return { requestId, href };

      const file = await waitingRoom.wait(() => awaitOutcome(deps, requestId, deps.syncTimeoutMs));
      return { requestId, href, storageKey: file.storageKey, contentType: file.contentType };
    },
  };
};
