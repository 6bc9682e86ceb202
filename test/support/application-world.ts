import { openAccount } from '../../application/accounts/open-account.js';
import { createCaptureService } from '../../application/captures/capture-service.js';
import { createCaptureSteps } from '../../application/captures/capture-steps.js';
import type { PageCapturer } from '../../application/ports/page-capture.js';
import { createRenderService } from '../../application/renders/render-service.js';
import type { RenderDocument, RenderEngine, RenderedFile, CaptureOptions } from '../../application/ports/render-engine.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import { createRenderSteps } from '../../application/renders/render-steps.js';
import { createTemplate, type CreateTemplateInput } from '../../application/templates/create-template/create-template.js';
import { replaceTemplateContent } from '../../application/templates/replace-template-content/replace-template-content.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/accounts/account-events.js';
import { renderStream } from '../../domain/renders/render-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { createAesGcmSecretSealer } from '../../infrastructure/security/aes-gcm-secret-sealer.js';
import { createResultLinks } from '../../infrastructure/storage/signed-links.js';
import { mustacheMergeFields } from '../../infrastructure/templates/mustache-merge-fields.js';
import { mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';
import { createFakeOrchestrator, type FakeOrchestrator } from './fake-orchestrator.js';
import { createInMemoryEventStore } from './in-memory-event-store.js';
import { createInMemoryReadModels } from './in-memory-read-models.js';
import { fakeClock, memoryFileStorage, recordingMetrics, sequentialIds, urlGuard } from './port-fakes.js';

/**
 * What an application service's unit test stands on: the in-memory event store with the service's
 * schemas, the real projections' folds as read models, fakes for the clock, ids, storage and the
 * browser, and the real application commands to set up the "given" (accounts, templates).
 */

export const ORG = 'org-acme';
export const OTHER_ORG = 'org-other';
/** The organization's webhook secret, as the sealed secret in its account stream holds it. */
export const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

export const contextOf = (orgId = ORG, scopes: readonly ApiKeyScope[] = API_KEY_SCOPES): RequestContext => ({
  caller: { orgId, actor: `key-of-${orgId}`, scopes },
  correlationId: `correlation-${orgId}`,
});

const CONTENT_TYPES: Record<CaptureOptions['format'], string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', pdf: 'application/pdf' };

/** A browser that "renders" the page's HTML as the file's bytes, or fails as told. */
export const fakeRenderEngine = () => {
  const rendered: { document: RenderDocument; options: CaptureOptions }[] = [];
  let failure: Error | null = null;
  const engine: RenderEngine & { readonly rendered: typeof rendered; failWith(error: Error | null): void } = {
    rendered,
    failWith(error) {
      failure = error;
    },
    async render(document, options): Promise<RenderedFile> {
      if (failure) throw failure;
      rendered.push({ document, options });
      const width = Math.round((options.crop?.width ?? document.width) * document.scaleFactor);
      const height = Math.round((options.crop?.height ?? document.height) * document.scaleFactor);
      return { content: Buffer.from(`${options.format}:${document.html}`), contentType: CONTENT_TYPES[options.format], width, height };
    },
  };
  return engine;
};

/** A browser that "captures" a web page as its URL, or fails as told. */
export const fakePageCapturer = () => {
  const captured: { url: string; tenant: string }[] = [];
  let failure: Error | null = null;
  const capturer: PageCapturer & { readonly captured: typeof captured; failWith(error: Error | null): void } = {
    captured,
    failWith(error) {
      failure = error;
    },
    async capture(spec, tenant) {
      if (failure) throw failure;
      captured.push({ url: spec.url, tenant });
      const pdf = spec.kind === 'pdf';
      return { content: Buffer.from(`${spec.kind}:${spec.url}`), contentType: pdf ? 'application/pdf' : 'image/png', width: spec.width, height: spec.height };
    },
  };
  return capturer;
};

/** Hosts the URL guard refuses, as the real one refuses private addresses. */
export const PRIVATE_HOST = '10.0.0.1';

export interface ServiceOptions {
  /** The world's own orchestrator (which runs the steps at once) unless given. */
  readonly orchestrator?: FakeOrchestrator;
  readonly maxPending?: number;
  readonly syncTimeoutMs?: number;
  /** Begin synchronous renders ahead of their workflows, as a process that runs the worker does. */
  readonly renderAhead?: boolean;
}

export const createWorld = () => {
  const eventStore = createInMemoryEventStore();
  const clock = fakeClock();
  const ids = sequentialIds();
  const readModels = createInMemoryReadModels(eventStore);
  const storage = memoryFileStorage();
  const links = createResultLinks({ baseUrl: 'https://renders.test', secret: 'links-secret' });
  const sealer = createAesGcmSecretSealer([{ id: 'test', key: Buffer.alloc(32, 9) }]);
  const metrics = recordingMetrics();
  const engine = fakeRenderEngine();
  const commandDeps = { eventStore, clock, ids };
  const renderSteps = createRenderSteps({
    ...commandDeps,
    storage,
    engine,
    merger: mustacheMerger,
    canvas: { toHtml: async () => '<main>canvas</main>' },
    metrics,
    assets: readModels.assets,
    maxRendersAhead: 4,
    // As a process that runs the projections beside its worker.
    readModelsHere: readModels.progress,
  });

  const capturer = fakePageCapturer();
  const captureSteps = createCaptureSteps({ eventStore, storage, capturer, metrics });
  const urls = urlGuard([PRIVATE_HOST]);
  // A capture's workflow charges and records as a render's does; only producing differs (captures record no completion early).
  const { produceNow: _producedForRendersOnly, ...bookkeeping } = renderSteps;
  const orchestrator = createFakeOrchestrator({ steps: { render: renderSteps, capture: { ...bookkeeping, produce: captureSteps.produce } } });

  const renderService = ({ orchestrator: chosen = orchestrator, maxPending = 4, syncTimeoutMs = 1000, renderAhead = false }: ServiceOptions = {}) =>
    createRenderService({
      ...commandDeps,
      templates: readModels.templates,
      results: readModels.results,
      accounts: readModels.accounts,
      orchestrator: chosen,
      progress: readModels.progress,
      links,
      storage,
      urls,
      syncTimeoutMs,
      maxPendingSyncRenders: maxPending,
      ...(renderAhead ? { renderAhead: renderSteps.renderAhead } : {}),
    });

  const captureService = ({ orchestrator: chosen = orchestrator, maxPending = 4, syncTimeoutMs = 1000 }: ServiceOptions = {}) =>
    createCaptureService({
      ...commandDeps,
      accounts: readModels.accounts,
      orchestrator: chosen,
      progress: readModels.progress,
      links,
      urls,
      syncTimeoutMs,
      maxPendingSyncCaptures: maxPending,
    });

  const given = {
    /** An open account on a monthly plan of `credits` and `uploadsBytes`, with WEBHOOK_SECRET as its webhook secret. */
    async account(orgId = ORG, { credits = 100, uploadsBytes = 10_000_000 }: { credits?: number; uploadsBytes?: number } = {}) {
      await openAccount(
        { ...commandDeps, progress: readModels.progress },
        { orgId, name: `${orgId} Ltd`, plan: { name: 'test', credits, uploadsBytes }, sealedWebhookSecret: sealer.seal(WEBHOOK_SECRET) },
      );
    },
    /** A template of the organization, a 600 x 300 html-editor png one unless said otherwise, with no content yet; resolves to its id. */
    template: (orgId = ORG, input: Partial<CreateTemplateInput> = {}) =>
      createTemplate({ ...commandDeps, progress: readModels.progress }, contextOf(orgId), { name: 'Card', width: 600, height: 300, editor: 'html-editor', outputFormat: 'png', ...input }),
    /** An html-editor template of the organization with this markup; resolves to its id. */
    async htmlTemplate(orgId = ORG, { html = '<h1>{{title}}</h1>', ...input }: Partial<CreateTemplateInput> & { html?: string } = {}) {
      const templateId = await given.template(orgId, input);
      await replaceTemplateContent({ ...commandDeps, progress: readModels.progress, mergeFields: mustacheMergeFields }, contextOf(orgId), templateId, {
        html,
        sampleData: { title: 'Sample' },
      });
      return templateId;
    },
    /**
     * A render of an html template accepted for a webhook (answered at once) whose workflow never
     * runs: the test runs its steps itself. Resolves to its request id.
     */
    async acceptedRender(orgId = ORG, data: Record<string, unknown> = { title: 'Accepted' }) {
      const templateId = await given.htmlTemplate(orgId);
      const answer = await renderService({ orchestrator: createFakeOrchestrator() }).render(contextOf(orgId), {
        template: templateId,
        data,
        webhookUrl: 'https://hooks.example.com/renders',
      });
      return answer.requestId;
    },
  };

  return {
    eventStore,
    clock,
    ids,
    readModels,
    storage,
    links,
    sealer,
    metrics,
    engine,
    capturer,
    urls,
    renderSteps,
    orchestrator,
    renderService,
    captureService,
    commandDeps,
    given,
    /** The events of a request's stream, as read back (current schema versions). */
    streamOf: (requestId: string): Promise<RecordedEvent[]> => eventStore.readStream(renderStream(requestId)),
    /** Types of the request's events, in order. */
    typesOf: async (requestId: string): Promise<string[]> => (await eventStore.readStream(renderStream(requestId))).map((event) => event.type),
    /** Every event of the log, in order. */
    log: async (): Promise<RecordedEvent[]> => eventStore.readAll({ after: null, limit: 10_000 }),
  };
};

export type World = ReturnType<typeof createWorld>;
