import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Lifetime } from '../system/lifetime.js';
import { createChromiumVideoRenderer } from '../video/chromium-video-renderer.js';
import { createBrowserPool, type BrowserPool, type BrowserPoolOptions } from './browser-pool.js';
import { createChromiumRenderEngine } from './chromium-render-engine.js';
import { startEgressProxy } from './egress-proxy.js';
import type { HostPolicy } from './network-guard.js';
import type { OrgAssetSource } from './org-assets.js';
import { createPageCapturer } from './page-capture.js';
import { prepareRenderPage } from './page-confinement.js';
import { prepareTemplateHost } from './template-document.js';

/**
 * Pages capturing one video together (the second joins only when the pool has it free): while one
 * page draws, the other is posed, and ffmpeg encodes beside them. On two cores more pages compete.
 */
const VIDEO_PAGES = 2;

type BrowserSetup = Pick<BrowserPoolOptions, 'preparePage' | 'resetPage' | 'extraArgs' | 'logger' | 'closeTimeoutMs'>;

/**
 * Video frames drawn on demand by a browser of their own (chrome-headless-shell), sized to the videos
 * this worker takes at once; absent when that browser is not installed, and videos share the render pool.
 * Fairness between organizations comes from the video task queue (VIDEO_CONCURRENCY), not this pool.
 */
const startVideoPool = (config: Config, logger: Logger, setup: BrowserSetup) => {
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

export interface RenderBrowsersOptions {
  readonly hostPolicy: HostPolicy;
  /** Each organization's uploads and fonts, served to its own pages only. */
  readonly orgAssets: OrgAssetSource;
  /** How long closing the pools may take at shutdown. */
  readonly closeTimeoutMs: number;
  readonly logger: Logger;
  readonly lifetime: Lifetime;
}

/**
 * A worker's Chromium: the render pool (warm before this returns), the video pool, and what renders,
 * captures and videos do on them. Every page, whichever pool it is in, is confined the same way and
 * reaches the network only through the egress proxy.
 */
export const startRenderBrowsers = async (config: Config, { hostPolicy, orgAssets, closeTimeoutMs, logger, lifetime }: RenderBrowsersOptions) => {
  const egress = await startEgressProxy({ policy: hostPolicy, logger });
  lifetime.defer(() => egress.close());
  const setup: BrowserSetup = {
    preparePage: prepareRenderPage(hostPolicy, orgAssets),
    resetPage: prepareTemplateHost,
    extraArgs: [...(config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : []), ...egress.chromiumArgs],
    logger,
    closeTimeoutMs,
  };
  const pool = createBrowserPool({
    ...setup,
    executablePath: config.CHROMIUM_PATH,
    browsers: config.BROWSERS,
    pagesPerBrowser: config.PAGES_PER_BROWSER,
    maxQueue: config.RENDER_QUEUE_MAX,
    maxQueuedPerTenant: config.RENDER_QUEUE_PER_ORG_MAX,
    tenantShare: config.RENDER_ORG_SHARE,
    idleBackground: config.BACKGROUND_RENDERS === 'idle',
  });
  lifetime.defer(() => pool.close());
  const videoPool = startVideoPool(config, logger, setup);
  if (videoPool) lifetime.defer(() => videoPool.close());
  await pool.warmUp();
  const pools: Record<string, BrowserPool> = videoPool ? { render: pool, video: videoPool } : { render: pool };
  return {
    /** By name, for the metrics. */
    pools,
    engine: createChromiumRenderEngine({ pool, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS, captureTimeoutMs: config.RENDER_CAPTURE_TIMEOUT_MS, maxPdfPages: config.PDF_MAX_PAGES }),
    capturer: createPageCapturer({ pool, navigationTimeoutMs: config.CAPTURE_NAVIGATION_TIMEOUT_MS, captureTimeoutMs: config.CAPTURE_TIMEOUT_MS, maxPdfPages: config.PDF_MAX_PAGES }),
    videos: createChromiumVideoRenderer({ pool: videoPool ?? pool, hostPolicy, loadTimeoutMs: config.RENDER_LOAD_TIMEOUT_MS, pagesPerVideo: VIDEO_PAGES }),
  };
};
