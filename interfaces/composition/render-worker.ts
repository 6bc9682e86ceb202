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
import { createOrgAssetSource } from '../../infrastructure/rendering/org-assets.js';
import { startRenderBrowsers } from '../../infrastructure/rendering/render-browsers.js';
import { startTemporalWorker, type WorkflowBundle } from '../../infrastructure/temporal/temporal-worker.js';
import type { NativeConnection } from '@temporalio/worker';
import { mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';
import type { Tracing } from '../../infrastructure/tracing/tracing.js';
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
import type { Lifetime } from '../../infrastructure/system/lifetime.js';

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
  const browsers = await startRenderBrowsers(config, {
    hostPolicy,
    orgAssets: createOrgAssetSource({ assets: readModels.assets, storage, publicOrigin: new URL(foundation.publicBaseUrl).origin }),
    closeTimeoutMs: shutdownShareMs,
    logger,
    lifetime,
  });
  options.metrics.watchPools(browsers.pools);

  const steps = createRenderSteps({
    ...commandDeps,
    storage,
    engine: browsers.engine,
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
    videos: browsers.videos,
    joiner: createFfmpegSegmentJoiner(),
    segmentSeconds: config.VIDEO_SEGMENT_SECONDS,
  });
  const videoActivities = createVideoRenderActivities(videoSteps);
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
      ...createCaptureActivities(createCaptureSteps({ eventStore, storage, capturer: browsers.capturer, metrics: options.metrics.metrics })),
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
