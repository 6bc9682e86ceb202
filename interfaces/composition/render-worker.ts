import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createBatchSteps } from '../../application/batches/run-batch/batch-steps.js';
import { createCaptureSteps } from '../../application/captures/capture-steps.js';
import type { ProjectionProgress } from '../../application/ports/read-models.js';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
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
import type { Lifetime } from '../../infrastructure/system/lifetime.js';
import { startTemporalWorker, type WorkflowBundle } from '../../infrastructure/temporal/temporal-worker.js';
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

export interface RenderWorkerOptions {
  /** The connection of this process's Temporal client, shared so that its starts are eager (connectTemporal's `workers`). */
  readonly connection: NativeConnection;
  readonly workflowBundle: WorkflowBundle;
  readonly metrics: PrometheusMetrics;
  readonly workflowSpans: Tracing['workflowSpans'];
  /** Where the Temporal SDK serves its metrics, when configured. */
  readonly metricsBindAddress: string | undefined;
  /** The read models this process keeps, when it runs the projections. */
  readonly readModelsHere: ProjectionProgress | undefined;
  /** Starts the render workflows of the batch rows the worker accepts. */
  readonly orchestrator: Pick<RenderOrchestrator, 'startBatchRow'>;
}

/** Chromium behind the egress proxy, the render, video, capture, batch and webhook steps, and the Temporal workers that run them. */
export const startRenderWorker = async (foundation: Foundation, config: Config, logger: Logger, lifetime: Lifetime, options: RenderWorkerOptions) => {
  // The workers and then the pool each get a share of the shutdown budget, so stopping ends in time
  // even while a render hangs; the process exits hard when the whole budget is spent anyway.
  const shutdownWithinMs = Math.floor(config.SHUTDOWN_TIMEOUT_MS / 4);
  // Renders the pool runs and queues at once: the line that renders begun ahead and render activities may fill.
  const renderLine = config.BROWSERS * config.PAGES_PER_BROWSER + config.RENDER_QUEUE_MAX;
  const orgAssets = createOrgAssetSource({ ...foundation, publicOrigin: new URL(foundation.publicBaseUrl).origin });
  const browsers = await startRenderBrowsers(config, { hostPolicy: foundation.urls, orgAssets, closeTimeoutMs: shutdownWithinMs, logger, lifetime });
  options.metrics.watchPools(browsers.pools);

  const deps = { ...foundation, ...options, metrics: options.metrics.metrics };
  const renders = createRenderSteps({ ...deps, engine: browsers.engine, merger: mustacheMerger, canvas: createHtmlCanvasRenderer(), maxRendersAhead: renderLine });
  const videos = createVideoRenderActivities(
    createVideoSteps({ ...deps, renders, videos: browsers.videos, joiner: createFfmpegSegmentJoiner(), segmentSeconds: config.VIDEO_SEGMENT_SECONDS }),
  );
  const sender = createFetchWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowedAddress: (host) => foundation.urls.allowedAddress(host) });
  const webhookDeps = { ...deps, sender, secrets: createWebhookSecrets({ ...deps, generator: randomWebhookSecrets }) };
  const retryPolicy = webhookRetryPolicy({
    receiverTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
    maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
    retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    maximumAttempts: config.WEBHOOK_RETRY_MAX_ATTEMPTS,
  });
  const worker = await startTemporalWorker({
    ...options,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: {
      ...createRenderActivities(renders),
      // Workflows started before videos had a queue of their own find their activities here.
      ...videos,
      ...createWebhookActivities(createWebhookDelivery(webhookDeps), retryPolicy),
      ...createCaptureActivities(createCaptureSteps({ ...deps, capturer: browsers.capturer })),
      ...createBatchActivities(createBatchSteps({ ...deps, pdfMerger: pdfLibMerger }), webhookDeps),
    },
    workflows: options.workflowBundle,
    // Enough that renders of every organization reach the pool's fair queue instead of waiting
    // in Temporal's first-come line behind one organization's flood.
    maxConcurrentActivities: renderLine,
    shutdownWithinMs,
  });
  lifetime.defer(() => worker.stop());
  options.metrics.includeExporter(worker.sdkMetricsUrl);

  // Video work polls a queue of its own, a few at a time: a worker that took every segment of a
  // long video at once would leave the other workers idle while its cores were oversubscribed.
  const videoWorker = await startTemporalWorker({
    connection: options.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: videoTaskQueueOf(config.TEMPORAL_TASK_QUEUE),
    activities: videos,
    workflows: 'none',
    maxConcurrentActivities: config.VIDEO_CONCURRENCY,
    shutdownWithinMs,
  });
  lifetime.defer(() => videoWorker.stop());
  return { renderAhead: renders.renderAhead };
};

export type RenderWorker = Awaited<ReturnType<typeof startRenderWorker>>;
