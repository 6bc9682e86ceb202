import type { AccountCommand } from '../../domain/accounts/account-commands.js';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { DomainError } from '../../domain/shared/errors.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream, type RenderRequested, type StoredFile } from '../../domain/renders/render-events.js';
import { resultFileOf, type AcceptedRequest } from '../../domain/renders/render.js';
import { EMPTY_COMPONENT_DOCUMENT } from '../../domain/templates/components/component-document.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import { isTemplateEvent, templateStream } from '../../domain/templates/template-events.js';
import type { FileStorage } from '../ports/file-storage.js';
import type { RenderDocument, RenderEngine, TemplateMerger } from '../ports/render-engine.js';
import type { CanvasRenderer } from '../ports/canvas-renderer.js';
import { createCommandBatcher } from '../shared/command-batcher.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import { readEvents } from '../shared/stream-reads.js';
import { htmlDocument } from './html-document.js';
import { loadRender } from './load-render.js';
import { systemContextFor } from './render-context.js';

export interface RenderStepsDeps extends CommandDeps {
  readonly storage: FileStorage;
  readonly engine: RenderEngine;
  readonly merger: TemplateMerger;
  readonly canvas: CanvasRenderer;
}

export type RenderSteps = ReturnType<typeof createRenderSteps>;

export const storageKeyOf = (request: AcceptedRequest) => `${request.orgId}/${request.requestId}/${resultFileOf(request).fileName}`;

/**
 * The steps of a render workflow, each safe to retry: charging and recording are idempotent by
 * request id in their deciders, and storing writes the same key again.
 */
export const createRenderSteps = (deps: RenderStepsDeps) => {
  /** The accepted request of either kind: charging and recording work alike for captures. */
  const loadAccepted = async (requestId: string): Promise<AcceptedRequest> => {
    return (await loadRender(deps.eventStore, requestId)).request;
  };

  const loadRequest = async (requestId: string): Promise<RenderRequested['data']> => {
    const request = await loadAccepted(requestId);
    if (!('spec' in request)) throw new DomainError('validation', `Request ${requestId} captures a web page; it renders no template`);
    return request;
  };

  /** Returns the log position of the outcome, so whoever waits for the request can wait for its read models too. */
  const onRender = async (requestId: string, command: Parameters<typeof renderDecider.decide>[0]): Promise<number | null> => {
    const request = await loadAccepted(requestId);
    return (await handleCommand(deps, renderDecider, renderStream(requestId), command, systemContextFor(request.orgId, requestId))).position;
  };

  /** Every render of an organization charges and may refund on its one account stream: batched, not serialised. */
  const accountCommands = createCommandBatcher(deps, accountDecider);

  /** Credits move on the requesting organization's account, recorded as the system's work for the request. */
  const onAccount = async (requestId: string, command: (request: AcceptedRequest, now: string) => AccountCommand) => {
    const request = await loadAccepted(requestId);
    const accountCommand = command(request, deps.clock.now().toISOString());
    await accountCommands.handle(accountStream(request.orgId), accountCommand, systemContextFor(request.orgId, requestId));
  };

  /** The template's content as it was at the revision the request pinned, whatever happened since. */
  const templateAt = async (templateId: string, revision: number) => {
    const events = (await readEvents(deps.eventStore, templateStream(templateId), isTemplateEvent)).filter((event) => event.revision <= revision);
    const template = foldEvents(templateDecider, events);
    if (template.status !== 'active') throw new DomainError('validation', `Template ${templateId} is not available`);
    return template;
  };

  /** The template's page with the request's data: merged markup, or the canvas drawn from its components. */
  const pageOf = async (
    template: Awaited<ReturnType<typeof templateAt>>,
    data: Record<string, unknown>,
    size: Omit<RenderDocument, 'html'>,
  ): Promise<RenderDocument> => {
    if (template.fields.editor !== 'html-editor') {
      const components = template.components ?? EMPTY_COMPONENT_DOCUMENT;
      return { ...size, html: await deps.canvas.toHtml(components, resolveValues(components, data), size) };
    }
    const content = template.content ?? { html: '', css: '', sampleData: {} };
    return htmlDocument(deps.merger.merge(content.html, { ...content.sampleData, ...data }), content.css, size);
  };

  return {
    loadRequest,
    templateAt,
    pageOf,

    charge: (requestId: string) =>
      onAccount(requestId, (request, now) => ({
        type: 'ChargeCredits',
        data: { orgId: request.orgId, requestId, amount: request.credits, now },
      })),

    refund: (requestId: string) =>
      onAccount(requestId, (request, now) => ({ type: 'RefundCredits', data: { orgId: request.orgId, requestId, now } })),

    /** Renders the pinned template with the request's data and stores the file. */
    async produce(requestId: string): Promise<StoredFile> {
      const request = await loadRequest(requestId);
      const { spec } = request;
      if (spec.format === 'mp4' || spec.format === 'webm') {
        throw new DomainError('validation', 'video renders are produced by the video workflow');
      }
      const template = await templateAt(spec.templateId, spec.templateRevision);
      const size = { width: spec.width, height: spec.height, scaleFactor: spec.scaleFactor, waitTime: spec.waitTime };
      const document = await pageOf(template, spec.data, size);
      const rendered = await deps.engine.render(document, { tenant: request.orgId, format: spec.format, quality: spec.quality, crop: spec.crop });
      const storageKey = storageKeyOf(request);
      await deps.storage.put(storageKey, rendered.content, rendered.contentType);
      return {
        storageKey,
        fileName: spec.fileName,
        contentType: rendered.contentType,
        bytes: rendered.content.length,
        width: rendered.width,
        height: rendered.height,
      };
    },

    complete: (requestId: string, file: StoredFile) =>
      onRender(requestId, {
        type: 'CompleteRender',
        data: { ...file, requestId, cached: false, sourceRequestId: null, now: deps.clock.now().toISOString() },
      }),

    fail: (requestId: string, reason: string) =>
      onRender(requestId, { type: 'FailRender', data: { requestId, reason, now: deps.clock.now().toISOString() } }),
  };
};
