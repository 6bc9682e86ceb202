import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventStore } from '../../application/ports/event-store.js';
import type { Metrics } from '../../application/ports/metrics.js';
import type { ProjectionSet } from '../projections/projection-set.js';
import type { BrowserPool } from '../rendering/browser-pool.js';

const PREFIX = 'render_service_';

/** From a cached image (tens of ms) to a long video (minutes). */
const RENDER_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600];
const HTTP_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface HttpRequestLabels {
  readonly method: string;
  /** The route's pattern (`/api/v2/templates/:templateId`), never the raw path: ids would explode the series. */
  readonly route: string;
  readonly status: number;
}

/**
 * One Prometheus registry per process, created by the composition root: what the use cases record
 * through the Metrics port, HTTP requests, and gauges read from the pool and the projections only
 * when scraped, so nothing polls them in between.
 */
/** An exporter that does not answer in time leaves its series out of this scrape and says so, rather than failing the whole scrape. */
const scrapeExporter = async (url: string): Promise<string> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (!response.ok) throw new Error(`status ${response.status}`);
    return await response.text();
  } catch (error) {
    return `# ${url} did not answer: ${(error as Error).message.replace(/\s+/g, ' ')}\n`;
  }
};

export const createPrometheusMetrics = () => {
  const registry = new Registry();
  const exporters: string[] = [];
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const registers = [registry];

  const renderLabels = ['kind', 'format', 'outcome'] as const;
  const renders = new Counter({ name: `${PREFIX}renders_total`, help: 'Attempts at producing a render, by kind, format and outcome', labelNames: renderLabels, registers });
  const renderSeconds = new Histogram({
    name: `${PREFIX}render_duration_seconds`,
    help: 'Time to produce a render (page, capture, encoding, storing), by kind, format and outcome',
    labelNames: renderLabels,
    buckets: RENDER_SECONDS,
    registers,
  });
  const rendersAhead = new Counter({
    name: `${PREFIX}renders_ahead_total`,
    help: 'Synchronous renders begun before their workflow asked, by how they ended: taken by the workflow, or unused (thrown away)',
    labelNames: ['outcome'],
    registers,
  });
  const webhookAttempts = new Counter({ name: `${PREFIX}webhook_attempts_total`, help: 'Webhook delivery attempts, by outcome', labelNames: ['outcome'], registers });
  const httpLabels = ['method', 'route', 'status'] as const;
  const httpRequests = new Counter({ name: `${PREFIX}http_requests_total`, help: 'HTTP requests, by method, route pattern and status', labelNames: httpLabels, registers });
  const httpSeconds = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP response time, by method, route pattern and status',
    labelNames: httpLabels,
    buckets: HTTP_SECONDS,
    registers,
  });

  const metrics: Metrics = {
    startRender(labels) {
      const stop = renderSeconds.startTimer(labels);
      return (outcome) => {
        stop({ outcome });
        renders.inc({ ...labels, outcome });
      };
    },
    webhookAttempt(outcome) {
      webhookAttempts.inc({ outcome });
    },
    renderAheadEnded(outcome) {
      rendersAhead.inc({ outcome });
    },
  };

  return {
    metrics,

    recordHttpRequest({ method, route, status }: HttpRequestLabels, seconds: number): void {
      const labels = { method, route, status: String(status) };
      httpRequests.inc(labels);
      httpSeconds.observe(labels, seconds);
    },

    /** The browser pools of a worker process by name (`render`, `video`): their state as of each scrape. */
    watchPools(pools: Readonly<Record<string, Pick<BrowserPool, 'stats'>>>): void {
      const named = Object.entries(pools);
      type Stats = ReturnType<BrowserPool['stats']>;
      const gauge = (name: string, help: string, read: (stats: Stats) => number) =>
        new Gauge({
          name: `${PREFIX}pool_${name}`,
          help,
          labelNames: ['pool'],
          registers,
          collect() {
            for (const [pool, watched] of named) this.set({ pool }, read(watched.stats()));
          },
        });
      gauge('queue_depth', 'Renders waiting for a page', (stats) => stats.queued);
      gauge('pages_busy', 'Pages rendering now', (stats) => stats.inFlight);
      gauge('capacity', 'Pages that may render at once', (stats) => stats.capacity);
      gauge('browsers', 'Chromium processes running', (stats) => stats.browsers);
      // The pools keep their own running totals; a counter here follows them by their increase.
      const total = (name: string, help: string, read: (stats: Stats) => number) => {
        const seen = new Map<string, number>();
        new Counter({
          name: `${PREFIX}pool_${name}_total`,
          help,
          labelNames: ['pool'],
          registers,
          collect() {
            for (const [pool, watched] of named) {
              const now = read(watched.stats());
              const before = seen.get(pool) ?? 0;
              // Zero is written too, so every pool's series exists from the first scrape.
              this.inc({ pool }, Math.max(0, now - before));
              seen.set(pool, now);
            }
          },
        });
      };
      total('browser_restarts', 'Browsers replaced after their render quota', (stats) => stats.restarts);
      total('browser_crashes', 'Browsers that crashed and were replaced', (stats) => stats.crashes);
      total('rejected', 'Renders refused because the queue was full or the wait too long', (stats) => stats.rejected);
    },

    /** How far each projection trails the log's head, read when scraped; only where projections run. */
    watchProjections({ eventStore, projections }: { readonly eventStore: Pick<EventStore, 'headPosition'>; readonly projections: Pick<ProjectionSet, 'runners'> }): void {
      new Gauge({
        name: `${PREFIX}projection_lag_positions`,
        help: 'Log positions between the head of the event log and what the projection has applied',
        labelNames: ['projection'],
        registers,
        async collect() {
          const head = await eventStore.headPosition();
          for (const runner of projections.runners) this.set({ projection: runner.name }, head === null ? 0 : Math.max(0, head - runner.position()));
        },
      });
    },

    /**
     * Series another exporter in this process serves as Prometheus text (the Temporal SDK's Rust
     * core), appended to each scrape so one target has them all. Their names (`temporal_*`) cannot
     * clash with this registry's prefix.
     */
    includeExporter(url: string): void {
      exporters.push(url);
    },

    async scrape(): Promise<{ readonly contentType: string; readonly body: string }> {
      const bodies = await Promise.all([registry.metrics(), ...exporters.map(scrapeExporter)]);
      return { contentType: registry.contentType, body: bodies.join('\n') };
    },
  };
};

export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>;
