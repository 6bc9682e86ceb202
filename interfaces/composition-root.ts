import type { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import type { Logger } from 'pino';
import { createAccountService } from '../application/accounts/account-service.js';
import { createUsageService } from '../application/accounts/usage-service.js';
import { createAuditService } from '../application/audit/audit-service.js';
import type { EventStore } from '../application/ports/event-store.js';
import { createResultService } from '../application/results/result-service.js';
import { createPendingRepair } from '../application/renders/pending-repair.js';
import { createTemplateService } from '../application/templates/template-service.js';
import { createEventIntegrity } from '../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../infrastructure/audit/ledger-read-model.js';
import type { Config } from '../infrastructure/config/config.js';
import { createEventStore } from '../infrastructure/event-store/create-event-store.js';
import { createFontconfigCatalog } from '../infrastructure/fonts/font-catalog.js';
import { resolveDatabaseUrl } from '../infrastructure/postgres/embedded-postgres.js';
import { createProjectionSet, type ProjectionSet } from '../infrastructure/projections/projection-set.js';
import { createAccountReadModel } from '../infrastructure/read-models/account-read-model.js';
import { openReadModels } from '../infrastructure/read-models/orm.js';
import { createResultReadModel } from '../infrastructure/read-models/result-read-model.js';
import { runPeriodically } from '../infrastructure/system/periodic-task.js';
import { createTemplateReadModel } from '../infrastructure/read-models/template-read-model.js';
import { cachedAccountReadModel, cachedResultReadModel, cachedTemplateReadModel } from '../infrastructure/read-models/cached-read-models.js';
import { sha256ApiKeyCodec } from '../infrastructure/security/api-key-codec.js';
import { createLocalFileStorage } from '../infrastructure/storage/local-file-storage.js';
import { createResultLinks } from '../infrastructure/storage/signed-links.js';
import { loadSigningSecret } from '../infrastructure/storage/signing-secret.js';
import { loadSecretSealer } from '../infrastructure/security/secrets-encryption-key.js';
import { systemClock, uuidV7Ids } from '../infrastructure/system/clock-and-ids.js';
import { mustacheMergeFields } from '../infrastructure/templates/mustache-merge-fields.js';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { RenderOrchestrator } from '../application/ports/render-orchestrator.js';
import { DomainError } from '../domain/shared/errors.js';
import { createRenderService } from '../application/renders/render-service.js';
import { createRenderSteps } from '../application/renders/render-steps.js';
import { createBrowserPool } from '../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy } from '../infrastructure/rendering/network-guard.js';
import { prepareRenderPage } from '../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../infrastructure/rendering/template-document.js';
import { startEgressProxy } from '../infrastructure/rendering/egress-proxy.js';
import { connectTemporal } from '../infrastructure/temporal/temporal-connection.js';
import { createTemporalRenderOrchestrator } from '../infrastructure/temporal/temporal-render-orchestrator.js';
import { startTemporalWorker } from '../infrastructure/temporal/temporal-worker.js';
import { mustacheMerger } from '../infrastructure/templates/mustache-merger.js';
import { createHtmlCanvasRenderer } from '../infrastructure/canvas/html-canvas-renderer.js';
import { createFetchWebhookSender } from '../infrastructure/webhooks/fetch-webhook-sender.js';
import { randomWebhookSecrets } from '../infrastructure/webhooks/random-webhook-secrets.js';
import { createWebhookDelivery } from '../application/webhooks/webhook-delivery.js';
import { createWebhookSecrets } from '../application/webhooks/webhook-secrets.js';
import { createRenderActivities } from '../workflows/render.activities.js';
import { createCaptureActivities } from '../workflows/capture.activities.js';
import { createCaptureSteps } from '../application/captures/capture-steps.js';
import { createCaptureService } from '../application/captures/capture-service.js';
import { createRequestListService } from '../application/requests/request-list-service.js';
import { createPageCapturer } from '../infrastructure/rendering/page-capture.js';
import { createWebhookActivities } from '../workflows/webhook.activities.js';
import { createVideoSteps } from '../application/renders/video-steps.js';
import { createChromiumVideoRenderer } from '../infrastructure/video/chromium-video-renderer.js';
import { createVideoRenderActivities } from '../workflows/video-render.activities.js';
import type { AppServices, HealthReport } from './http/app-services.js';

export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly eventStore: EventStore;
  readonly orm: MikroORM;
  readonly projections: ProjectionSet;
  readonly services: AppServices;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Follow the event log into the read models (the API process, and CLI commands that read them). */
  readonly runProjections: boolean;
  /**
   * 'worker': connect to Temporal and render in this process (npm start, npm run worker);
   * 'client': start renders, leave the work to workers elsewhere; 'off': no Temporal at all (admin CLI).
   */
  readonly rendering: 'worker' | 'client' | 'off';
  /** A pre-built workflow bundle; tests build one per run instead of one per worker. */
  readonly workflowBundle?: WorkflowBundleWithSourceMap;
}

/**
 * Pages capturing one video together (the second joins only when the pool has it free). Each
 * screenshot waits for the compositor's next frame; a second page fills that wait, which on two
 * cores takes a 1080p capture from ~11 to ~15-20 frames/s (npm run bench:video). More pages compete.
 */
const VIDEO_PAGES = 2;

/** Administrative processes never render; if one is asked to, it says so instead of hanging. */
const renderingDisabled: RenderOrchestrator = {
  start: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
  startVideo: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
  startCapture: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
  startWebhook: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
  workflowState: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
  waitForOutcome: () => Promise.reject(new DomainError('unavailable', 'Rendering is not enabled in this process')),
};

/** The one place where adapters meet ports (emmett's composition root). */
export const createRuntime = async (config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> => {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const database = await resolveDatabaseUrl({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
    closers.push(() => database.stop());
    const eventStore = await createEventStore({ eventStoreUrl: config.EVENTSTORE_URL, databaseUrl: database.url, logger });
    closers.push(() => eventStore.close());
    const orm = await openReadModels(database.url);
    closers.push(() => orm.close());
    const projections = createProjectionSet({ orm, eventStore, logger });
    closers.push(() => projections.stop());
    if (options.runProjections) await projections.start();

    const commandDeps = { eventStore, clock: systemClock, ids: uuidV7Ids };
    const secretSealer = await loadSecretSealer({ configured: config.SECRETS_ENCRYPTION_KEY, dataDir: config.DATA_DIR });
    // Keys, templates and cache keys are read on every render; only a process that follows the log knows when a cached row went stale.
    const accountReadModel = options.runProjections ? cachedAccountReadModel(createAccountReadModel(orm), projections) : createAccountReadModel(orm);
    const templateReadModel = options.runProjections ? cachedTemplateReadModel(createTemplateReadModel(orm), projections) : createTemplateReadModel(orm);
    const resultReadModel = options.runProjections ? cachedResultReadModel(createResultReadModel(orm), projections) : createResultReadModel(orm);
    const accounts = createAccountService({
      ...commandDeps,
      accounts: accountReadModel,
      progress: projections,
      apiKeys: sha256ApiKeyCodec,
      defaultPlan: { name: config.DEFAULT_PLAN_NAME, credits: config.DEFAULT_PLAN_CREDITS, uploadsBytes: config.DEFAULT_UPLOADS_BYTES },
      webhookSecretGenerator: randomWebhookSecrets,
      secretSealer,
    });
    const templates = createTemplateService({
      ...commandDeps,
      templates: templateReadModel,
      progress: projections,
      mergeFields: mustacheMergeFields,
    });
    const storage = createLocalFileStorage(path.join(config.DATA_DIR, 'files'));
    const links = createResultLinks({
      baseUrl: config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`,
      secret: await loadSigningSecret({ configured: config.URL_SIGNING_SECRET, dataDir: config.DATA_DIR }),
    });
    const results = createResultService({ ...commandDeps, results: createResultReadModel(orm), progress: projections, storage, links });
    const usage = createUsageService({ accounts: accountReadModel, clock: systemClock });
    const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(database.url) });
    const fonts = createFontconfigCatalog();

    const temporal =
      options.rendering === 'off'
        ? null
        : await connectTemporal({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, dataDir: config.DATA_DIR, logger });
    if (temporal) closers.push(() => temporal.close());
    const hostPolicy = createHostPolicy({ allowedPrivateHosts: config.ALLOWED_PRIVATE_HOSTS });
    // The worker and then the pool each get a share of the shutdown budget, so stopping ends in time
    // even while a render hangs; the process exits hard when the whole budget is spent anyway.
    const shutdownShareMs = Math.floor(config.SHUTDOWN_TIMEOUT_MS / 4);
    if (temporal && options.rendering === 'worker') {
      const egress = await startEgressProxy({ policy: hostPolicy, logger });
      closers.push(() => egress.close());
      const pool = createBrowserPool({
        executablePath: config.CHROMIUM_PATH,
        browsers: config.BROWSERS,
        pagesPerBrowser: config.PAGES_PER_BROWSER,
        maxQueue: config.RENDER_QUEUE_MAX,
        maxQueuedPerTenant: config.RENDER_QUEUE_PER_ORG_MAX,
        tenantShare: config.RENDER_ORG_SHARE,
        preparePage: prepareRenderPage(hostPolicy),
        resetPage: prepareTemplateHost,
        closeTimeoutMs: shutdownShareMs,
        extraArgs: [...(config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : []), ...egress.chromiumArgs],
        logger,
      });
      closers.push(() => pool.close());
      await pool.warmUp();
      const canvas = createHtmlCanvasRenderer();
      const steps = createRenderSteps({
        ...commandDeps,
        storage,
        engine: createChromiumRenderEngine({ pool, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS, captureTimeoutMs: config.RENDER_CAPTURE_TIMEOUT_MS }),
        merger: mustacheMerger,
        canvas,
      });
      const videoSteps = createVideoSteps({
        ...commandDeps,
        storage,
        renders: steps,
        videos: createChromiumVideoRenderer({ pool, hostPolicy, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS, pagesPerVideo: VIDEO_PAGES }),
      });
      const capturer = createPageCapturer({
        pool,
        navigationTimeoutMs: config.CAPTURE_NAVIGATION_TIMEOUT_MS,
        captureTimeoutMs: config.CAPTURE_TIMEOUT_MS,
      });
      const webhookDelivery = createWebhookDelivery({
        ...commandDeps,
        links,
        sender: createFetchWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowedAddress: (host) => hostPolicy.allowedAddress(host) }),
        urls: hostPolicy,
        secrets: createWebhookSecrets({ ...commandDeps, generator: randomWebhookSecrets, sealer: secretSealer }),
      });
      const webhookPolicy = {
        initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
        maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
        retryForMs: config.WEBHOOK_RETRY_FOR_MS,
        maximumAttempts: config.WEBHOOK_RETRY_MAX_ATTEMPTS,
        // The receiver's time plus reading the stream and recording the attempt.
        attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS + 20_000,
      };
      const worker = await startTemporalWorker({
        address: temporal.address,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        activities: {
          ...createRenderActivities(steps),
          ...createVideoRenderActivities(videoSteps),
          ...createWebhookActivities(webhookDelivery, webhookPolicy),
          ...createCaptureActivities(createCaptureSteps({ eventStore, storage, capturer })),
        },
        workflowBundle: options.workflowBundle,
        // Enough that renders of every organization reach the pool's fair queue instead of waiting
        // in Temporal's first-come line behind one organization's flood.
        maxConcurrentActivities: config.BROWSERS * config.PAGES_PER_BROWSER + config.RENDER_QUEUE_MAX,
        shutdownWithinMs: shutdownShareMs,
      });
      closers.push(() => worker.stop());
    }
    const orchestrator = temporal
      ? createTemporalRenderOrchestrator({ client: temporal.client, taskQueue: config.TEMPORAL_TASK_QUEUE })
      : renderingDisabled;
    const renders = createRenderService({
      ...commandDeps,
      templates: templateReadModel,
      results: resultReadModel,
      accounts: accountReadModel,
      orchestrator,
      progress: projections,
      links,
      storage,
      urls: hostPolicy,
      syncTimeoutMs: config.SYNC_RENDER_TIMEOUT_MS,
      maxPendingSyncRenders: config.MAX_PENDING_SYNC_RENDERS,
    });
    const captures = createCaptureService({
      ...commandDeps,
      accounts: accountReadModel,
      orchestrator,
      progress: projections,
      links,
      urls: hostPolicy,
      syncTimeoutMs: config.SYNC_RENDER_TIMEOUT_MS,
      maxPendingSyncCaptures: config.MAX_PENDING_SYNC_RENDERS,
    });
    const requests = createRequestListService({ results: createResultReadModel(orm), links, eventStore });

    // Only a process that follows the log sees the pending rows, and only one with Temporal can tell a live workflow.
    if (options.runProjections && temporal) {
      const repair = createPendingRepair({
        ...commandDeps,
        results: createResultReadModel(orm),
        orchestrator,
        graceMs: config.PENDING_REPAIR_AFTER_MS,
        batchSize: 100,
      });
      const repairing = runPeriodically(
        async () => {
          for (const { requestId, why } of await repair.repairOnce()) logger.warn({ requestId, why }, 'failed a request left pending');
        },
        config.PENDING_REPAIR_INTERVAL_MS,
        (error) => logger.error({ err: error }, 'repair of pending requests failed'),
      );
      closers.push(() => repairing.stop());
    }

    const health = async (): Promise<HealthReport> => {
      const checks: HealthReport['checks'] = {};
      const probe = async (name: string, check: () => Promise<unknown>) => {
        try {
          await check();
          checks[name] = { ok: true };
        } catch (error) {
          checks[name] = { ok: false, detail: (error as Error).message };
        }
      };
      await probe('eventStore', () => eventStore.readAll({ after: null, limit: 1 }));
      await probe('readModels', () => orm.em.getConnection().execute('select 1'));
      checks.projections = projections.isLive() ? { ok: true } : { ok: false, detail: 'projections are not following the log' };
      return { ok: Object.values(checks).every((check) => check.ok), checks };
    };

    return { config, logger, eventStore, orm, projections, services: { templates, accounts, results, usage, fonts, renders, captures, requests, audit, health }, close };
  } catch (error) {
    await close();
    throw error;
  }
};
