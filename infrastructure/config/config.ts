import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_CHROMIUM_PATH } from '../rendering/chromium-path.js';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim().toLowerCase()).filter(Boolean));

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data').transform((dir) => path.resolve(dir)),
  DATABASE_URL: optionalText.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  EVENTSTORE_URL: optionalText.pipe(z.string().regex(/^(esdb|kurrentdb|esdb\+discover)(\+discover)?:\/\//, 'must be an esdb:// connection string').optional()),
  BOOTSTRAP_API_KEY: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'like 2mb').default('2mb'),
  DEFAULT_PLAN_NAME: z.string().min(1).default('free'),
  DEFAULT_PLAN_CREDITS: z.coerce.number().int().min(0).default(1000),
  DEFAULT_UPLOADS_BYTES: z.coerce.number().int().min(0).default(1024 * 1024 * 1024),
  ALLOWED_PRIVATE_HOSTS: commaList,
  TEMPORAL_ADDRESS: optionalText.pipe(z.string().regex(/^[\w.-]+:\d+$/, 'host:port').optional()),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('renders'),
  /** The render pool's browser: chrome-headless-shell (see DEFAULT_CHROMIUM_PATH for why not full Chromium). */
  CHROMIUM_PATH: z.string().default(DEFAULT_CHROMIUM_PATH),
  /**
   * chrome-headless-shell, for video frames drawn on demand (less CPU per frame, no 60 Hz wait);
   * empty, or absent from the machine: videos are captured on CHROMIUM_PATH's pages instead.
   */
  VIDEO_CHROMIUM_PATH: z.string().default(DEFAULT_CHROMIUM_PATH),
  /** Containers under Docker's default seccomp profile cannot use Chromium's sandbox; isolation comes from the container then. */
  CHROMIUM_NO_SANDBOX: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  BROWSERS: z.coerce.number().int().min(1).max(16).default(1),
  PAGES_PER_BROWSER: z.coerce.number().int().min(1).max(32).default(4),
  /**
   * idle: batch rows render in a browser of their own in the idle scheduling class, so the kernel
   * serves renders clients wait for first; shared: in the same browsers, admitted after them.
   */
  BACKGROUND_RENDERS: z.enum(['idle', 'shared']).default('idle'),
  RENDER_QUEUE_MAX: z.coerce.number().int().min(0).default(32),
  /** Renders one organization may have waiting for a page; its next one is refused (and retried), the others' are not. */
  RENDER_QUEUE_PER_ORG_MAX: z.coerce.number().int().min(1).default(16),
  /** Share of the pool's pages one organization may use at once (at least one), so others always find room. */
  RENDER_ORG_SHARE: z.coerce.number().gt(0).max(1).default(0.75),
  RENDER_LOAD_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  /** Bound on drawing a loaded template (screenshot or PDF); with the load bound and waitTime it makes the render's hard deadline. */
  RENDER_CAPTURE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
  /**
   * The most pages a PDF may have (an html template's document, or a web page): a longer one is
   * refused with a 400, and no more than one page past it is ever printed.
   */
  PDF_MAX_PAGES: z.coerce.number().int().min(1).max(10_000).default(200),
  /** Screenshots and PDFs of URLs: bound on reaching the page's load event; a page still loading then is captured as it stands. */
  CAPTURE_NAVIGATION_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  /** Bound on taking the screenshot or printing the PDF of a loaded page. */
  CAPTURE_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  /**
   * Videos longer than one and a half segments are cut into segments of this many seconds, rendered
   * at once on whichever workers are free and joined without re-encoding; 0 renders every video whole.
   */
  VIDEO_SEGMENT_SECONDS: z.coerce.number().min(0).max(600).default(5),
  /** Videos or segments one worker renders at once: each keeps two pages and ffmpeg busy, about two cores. */
  VIDEO_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** Video browsers start with the first video and close after this long without one, so an idle worker holds no memory for them. */
  VIDEO_BROWSER_IDLE_MS: z.coerce.number().int().min(1000).default(5 * 60_000),
  SYNC_RENDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30000),
  MAX_PENDING_SYNC_RENDERS: z.coerce.number().int().min(1).default(64),
  /** How often a process that follows the log looks for requests left pending without a live workflow, and how old they must be. */
  PENDING_REPAIR_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  PENDING_REPAIR_AFTER_MS: z.coerce.number().int().min(0).default(120_000),
  /** Requests one API key may make per window, by the organization's plan (`free:600,pro:6000`); RATE_LIMIT_DEFAULT for other plans; 0 for no limit. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_DEFAULT: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_PLANS: optionalText.pipe(
    z
      .string()
      .regex(/^[\w-]+:\d+(,[\w-]+:\d+)*$/, 'like free:600,pro:6000')
      .transform((text) => new Map(text.split(',').map((pair) => [pair.split(':')[0] ?? '', Number(pair.split(':')[1])])))
      .optional(),
  ),
  /**
   * Views of signed image URLs one client address may make per rate-limit window, whatever the URLs'
   * keys (they need no API key, so nothing else bounds a client); counted by each API process; 0 for no limit.
   */
  SIGNED_IMAGE_RATE_LIMIT: z.coerce.number().int().min(0).default(300),
  /** Proxies in front of the service whose X-Forwarded-For is believed for a client's address; 0 reads the socket's. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** A workflow bundle written by scripts/bundle-workflows.ts (the image has one); unset: workers bundle at start. */
  WORKFLOW_BUNDLE_PATH: optionalText.pipe(z.string().optional()),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10000),
  /** Origin of result hrefs as clients reach the service (behind a proxy); http://127.0.0.1:<PORT> when unset. */
  PUBLIC_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** Where result files live: `local` under DATA_DIR/files (one host), or `s3` in a bucket every host shares. */
  STORAGE: z.enum(['local', 's3']).default('local'),
  /** An S3-compatible server (MinIO, Ceph, R2, ...); unset: AWS S3 for S3_REGION. */
  S3_ENDPOINT: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  S3_BUCKET: optionalText,
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Both or neither; neither: the AWS SDK's default credential chain (environment, profile, instance role). */
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /** Signs expiring result links; generated once into the data folder when unset. */
  URL_SIGNING_SECRET: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Seals webhook secrets in events: `id:base64key[,...]`, the first seals; generated once into the data folder when unset. */
  SECRETS_ENCRYPTION_KEY: optionalText,
  /** Webhook retries: exponential backoff (x2) from the first interval up to the longest, for the window; read by workers. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(5_000),
  WEBHOOK_RETRY_MAX_INTERVAL_MS: z.coerce.number().int().min(10).default(60 * 60 * 1000),
  WEBHOOK_RETRY_FOR_MS: z.coerce.number().int().min(1000).default(24 * 60 * 60 * 1000),
  /** 0: no limit on attempts, only the window. */
  WEBHOOK_RETRY_MAX_ATTEMPTS: z.coerce.number().int().min(0).default(0),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Port where a render worker's Temporal SDK serves its own Prometheus metrics (polls, slots,
   * task latencies). Unset: not exported, since one fixed default would clash between workers on one host.
   */
  TEMPORAL_METRICS_PORT: optionalText.pipe(z.string().regex(/^\d+$/, 'a port number').transform(Number).pipe(z.number().int().min(1).max(65535)).optional()),
  /** Port where a worker alone (npm run worker) serves /metrics, /livez and /readyz; unset: it serves no HTTP. */
  WORKER_HTTP_PORT: optionalText.pipe(z.string().regex(/^\d+$/, 'a port number').transform(Number).pipe(z.number().int().min(0).max(65535)).optional()),
  /**
   * OpenTelemetry tracing is on when either is set (OTLP over HTTP; the exporter reads the other
   * standard OTEL_EXPORTER_OTLP_* and OTEL_BSP_* variables itself).
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  OTEL_SERVICE_NAME: z.string().min(1).default('render-service'),
}).superRefine((config, context) => {
  if (config.STORAGE !== 's3') return;
  if (!config.S3_BUCKET) context.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when STORAGE=s3' });
  if (!config.S3_ACCESS_KEY_ID !== !config.S3_SECRET_ACCESS_KEY) {
    context.addIssue({ code: 'custom', path: ['S3_SECRET_ACCESS_KEY'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
});

export type Config = z.output<typeof ConfigSchema>;

/** Validates the whole environment at start; a bad value stops the service with every problem listed. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const result = ConfigSchema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
  throw new Error(`Invalid configuration:\n${problems}`);
};
