import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { createBatchSteps } from '../../application/batches/run-batch/batch-steps.js';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { createCaptureSteps } from '../../application/captures/capture-steps.js';
import type { ProjectionProgress } from '../../application/ports/read-models.js';
import { createRenderSteps } from '../../application/renders/render-steps.js';
import { createVideoSteps } from '../../application/renders/video-steps.js';
import { createWebhookDelivery } from '../../application/webhooks/deliver-webhook/deliver-webhook.js';
import { webhookRetryPolicy } from '../../application/webhooks/deliver-webhook/retry-policy.js';
import { createWebhookSecrets } from '../../application/webhooks/webhook-secrets.js';
import { pdfLibMerger } from '../../infrastructure/batches/pdf-merger.js';
import { createHtmlCanvasRenderer } from '../../infrastructure/canvas/html-canvas-renderer.js';
import type { Config } from '../../infrastructure/config/config.js';
import type { PrometheusMetrics } from '../../infrastructure/metrics/prometheus-metrics.js';
import { createBrowserPool, type BrowserPoolOptions } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { startEgressProxy } from '../../infrastructure/rendering/egress-proxy.js';
import { createPageCapturer } from '../../infrastructure/rendering/page-capture.js';
import { createOrgAssetSource } from '../../infrastructure/rendering/org-assets.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';
import { startTemporalWorker, type WorkflowBundle } from '../../infrastructure/temporal/temporal-worker.js';
import type { NativeConnection } from '@temporalio/worker';
import { mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';
import type { Tracing } from '../../infrastructure/tracing/tracing.js';
import { createChromiumVideoRenderer } from '../../infrastructure/video/chromium-video-renderer.js';
import { createFfmpegSegmentJoiner } from '../../infrastructure/video/ffmpeg-segment-joiner.js';
import { createFetchWebhookSender } from '../../infrastructure/webhooks/fetch-webhook-sender.js';
import { randomWebhookSecrets } from '../../infrastructure/webhooks/random-webhook-secrets.js';
import { createBatchActivities } from '../../workflows/batch.activities.js';
import { createCaptureActivities } from '../../workflows/capture.activities.js';
import { createRenderActivities } from '../../workflows/render.activities.js';
import { createVideoRenderActivities } from '../../workflows/video-render.activities.js';
import { videoTaskQueueOf } from '../../workflows/video-render.workflow.js';
import { createWebhookActivities } from '../../workflows/webhook.activities.js';
import type { Foundation } from './foundation.js';
import type { Lifetime } from './lifetime.js';

/**
 * Pages capturing one video together (the second joins only when the pool has it free): while one
 * page draws, the other is posed, and ffmpeg encodes beside them. On two cores more pages compete.
 */
const VIDEO_PAGES = 2;

/**
 * Video frames drawn on demand by a browser of their own (chrome-headless-shell), sized to the videos
 * this worker takes at once; absent when that browser is not installed, and videos share the render pool.
 * Fairness between organizations comes from the video task queue (VIDEO_CONCURRENCY), not this pool.
 */
const startVideoPool = (config: Config, logger: Logger, setup: Pick<BrowserPoolOptions, 'preparePage' | 'resetPage' | 'extraArgs' | 'logger' | 'closeTimeoutMs'>) => {
  if (!config.VIDEO_CHROMIUM_PATH || !existsSync(config.VIDEO_CHROMIUM_PATH)) {
    logger.warn({ path: config.VIDEO_CHROMIUM_PATH }, 'chrome-headless-shell not found: video frames are captured by screenshot on the render pool, slower');
    return undefined;
  }
  return createBrowserPool({
    ...setup,
    executablePath: config.VIDEO_CHROMIUM_PATH,
    framesOnDemand: true,
    browsers: config.VIDEO_CONCURRENCY * VIDEO_PAGES,
    pagesPerBrowser: 1,
    tenantShare: 1,
    // Started by the first video, not at boot, and closed when videos stop coming: most workers render few.
    idleCloseMs: config.VIDEO_BROWSER_IDLE_MS,
  });
};

/** Where this process's Temporal SDK serves its metrics: the configured port, or a free loopback one (temporal-worker.ts). */
export const temporalMetricsAddress = (config: Config): string | undefined =>
  config.TEMPORAL_METRICS_PORT === undefined ? undefined : `${config.HOST}:${config.TEMPORAL_METRICS_PORT}`;

export interface RenderWorkerOptions {
  /** The connection of this process's Temporal client, shared so that its starts are eager (connectTemporal's `workers`). */
  readonly temporalConnection: NativeConnection;
  /** Built while the process started, read from the image's prebuilt file, or shared by a test run. */
  readonly workflowBundle: WorkflowBundle;
  readonly metrics: PrometheusMetrics;
  readonly workflowSpans: Tracing['workflowSpans'];
  /** The read models this process keeps, when it runs the projections. */
  readonly readModelsHere?: ProjectionProgress;
  /** Starts the render workflows of the batch rows the worker accepts. */
  readonly orchestrator: Pick<RenderOrchestrator, 'startBatchRow'>;
}

/** Chromium behind the egress proxy, the render, video, capture and webhook steps, and the Temporal worker that runs them. */
export const startRenderWorker = async (foundation: Foundation, config: Config, logger: Logger, lifetime: Lifetime, options: RenderWorkerOptions) => {
  const { commandDeps, storage, links, hostPolicy, eventStore, readModels } = foundation;
  // The worker and then the pool each get a share of the shutdown budget, so stopping ends in time
  // even while a render hangs; the process exits hard when the whole budget is spent anyway.
  const shutdownShareMs = Math.floor(config.SHUTDOWN_TIMEOUT_MS / 4);
  // Renders the pool runs and queues at once: the line that renders begun ahead and render activities may fill.
  const renderLine = config.BROWSERS * config.PAGES_PER_BROWSER + config.RENDER_QUEUE_MAX;
  const egress = await startEgressProxy({ policy: hostPolicy, logger });
  lifetime.defer(() => egress.close());
  // Every page, whichever pool it is in, is confined the same way and reaches the network only through the proxy.
  const browserSetup = {
    preparePage: prepareRenderPage(hostPolicy, createOrgAssetSource({ assets: readModels.assets, storage, publicOrigin: new URL(foundation.publicBaseUrl).origin })),
    resetPage: prepareTemplateHost,
    extraArgs: [...(config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : []), ...egress.chromiumArgs],
    logger,
  };
  const pool = createBrowserPool({
    ...browserSetup,
    executablePath: config.CHROMIUM_PATH,
    browsers: config.BROWSERS,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    maxQueue: config.RENDER_QUEUE_MAX,
    maxQueuedPerTenant: config.RENDER_QUEUE_PER_ORG_MAX,
    tenantShare: config.RENDER_ORG_SHARE,
    idleBackground: config.BACKGROUND_RENDERS === 'idle',
    closeTimeoutMs: shutdownShareMs,
  });
  lifetime.defer(() => pool.close());
  const videoPool = startVideoPool(config, logger, { ...browserSetup, closeTimeoutMs: shutdownShareMs });
  if (videoPool) lifetime.defer(() => videoPool.close());
  options.metrics.watchPools(videoPool ? { render: pool, video: videoPool } : { render: pool });
  await pool.warmUp();

  const steps = createRenderSteps({
    ...commandDeps,
    storage,
    engine: createChromiumRenderEngine({
      pool,
      loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS,
      captureTimeoutMs: config.RENDER_CAPTURE_TIMEOUT_MS,
      maxPdfPages: config.PDF_MAX_PAGES,
    }),
    merger: mustacheMerger,
    canvas: createHtmlCanvasRenderer(),
    metrics: options.metrics.metrics,
    assets: readModels.assets,
    readModelsHere: options.readModelsHere,
    // A render begun ahead holds its place in that line.
    maxRendersAhead: renderLine,
  });
  const videoSteps = createVideoSteps({
    ...commandDeps,
    storage,
    renders: steps,
    metrics: options.metrics.metrics,
    videos: createChromiumVideoRenderer({ pool: videoPool ?? pool, hostPolicy, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS, pagesPerVideo: VIDEO_PAGES }),
    joiner: createFfmpegSegmentJoiner(),
    segmentSeconds: config.VIDEO_SEGMENT_SECONDS,
  });
  const videoActivities = createVideoRenderActivities(videoSteps);
  const capturer = createPageCapturer({
    pool,
    navigationTimeoutMs: config.CAPTURE_NAVIGATION_TIMEOUT_MS,
    captureTimeoutMs: config.CAPTURE_TIMEOUT_MS,
    maxPdfPages: config.PDF_MAX_PAGES,
  });
  const webhookSender = createFetchWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowedAddress: (host) => hostPolicy.allowedAddress(host) });
  const webhookSecrets = createWebhookSecrets({ ...commandDeps, generator: randomWebhookSecrets, sealer: foundation.secretSealer });
  const webhookDelivery = createWebhookDelivery({ ...commandDeps, links, sender: webhookSender, urls: hostPolicy, secrets: webhookSecrets, metrics: options.metrics.metrics });
  const webhookPolicy = webhookRetryPolicy({
    receiverTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
    maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
    retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    maximumAttempts: config.WEBHOOK_RETRY_MAX_ATTEMPTS,
  });
  const worker = await startTemporalWorker({
    connection: options.temporalConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: {
      ...createRenderActivities(steps),
      // Workflows started before videos had a queue of their own find their activities here.
      ...videoActivities,
      ...createWebhookActivities(webhookDelivery, webhookPolicy),
      ...createCaptureActivities(createCaptureSteps({ eventStore, storage, capturer, metrics: options.metrics.metrics })),
      ...createBatchActivities(
        createBatchSteps({
          ...commandDeps,
          templates: readModels.templates,
          accounts: readModels.accounts,
          results: readModels.results,
          batches: readModels.batches,
          links,
          storage,
          pdfMerger: pdfLibMerger,
          orchestrator: options.orchestrator,
        }),
        { ...commandDeps, sender: webhookSender, secrets: webhookSecrets, urls: hostPolicy, publicBaseUrl: foundation.publicBaseUrl },
      ),
    },
    workflows: options.workflowBundle,
    // Enough that renders of every organization reach the pool's fair queue instead of waiting
    // in Temporal's first-come line behind one organization's flood.
    maxConcurrentActivities: renderLine,
    shutdownWithinMs: shutdownShareMs,
    metricsBindAddress: temporalMetricsAddress(config),
    workflowSpans: options.workflowSpans,
  });
  lifetime.defer(() => worker.stop());
  options.metrics.includeExporter(worker.sdkMetricsUrl);

  /*
   * Video work polls a queue of its own, a few at a time: a worker that took every segment of a
   * long video at once would leave the other workers idle while its cores were oversubscribed.
   */
  const videoWorker = await startTemporalWorker({
    connection: options.temporalConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: videoTaskQueueOf(config.TEMPORAL_TASK_QUEUE),
    activities: videoActivities,
    workflows: 'none',
    maxConcurrentActivities: config.VIDEO_CONCURRENCY,
    shutdownWithinMs: shutdownShareMs,
  });
  lifetime.defer(() => videoWorker.stop());
  return { renderAhead: steps.renderAhead };
};

export type RenderWorker = Awaited<ReturnType<typeof startRenderWorker>>;
