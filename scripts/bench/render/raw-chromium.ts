import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM_ARGS } from '../../../infrastructure/rendering/browser-pool.js';
import type { CpuWindow, SamplerRequest } from '../cpu-sampler.worker.js';
import { chromiumBrowsersUnder } from '../process-cpu.js';
import type { BenchThread } from '../threads.js';
import type { RenderBench } from './bench-context.js';

/** The raw browser counts as settled below this idle CPU (CPU-s per second), waited for at most RAW_SETTLE_MAX_MS. */
const RAW_QUIET_CPU = 0.05;
const RAW_SETTLE_MAX_MS = 10_000;
const POOL_ONLY_ARGS = ['--user-data-dir', '--remote-debugging-'];
/** The service's egress proxy: URL captures of the raw browser go straight to the page. */
const EGRESS_PROXY_ARGS = ['--proxy-server', '--proxy-bypass-list'];

export interface RawChromium {
  readonly browser: Browser;
  readonly pid: number | undefined;
  /** The pool's browser whose command line it was launched with, when there was one to copy. */
  readonly model: ReturnType<typeof chromiumBrowsersUnder>[number] | undefined;
}

/**
 * The physical limit the service is measured against: a Chromium of its own with the pool browser's
 * exact command line (found in /proc: a Chromium below this process without --type=), minus its
 * profile folder and debugging pipe, which puppeteer sets again.
 */
export const launchRawChromium = async ({ config }: RenderBench, { withoutEgressProxy }: { withoutEgressProxy: boolean }): Promise<RawChromium> => {
  const model = chromiumBrowsersUnder(process.pid)[0];
  const dropped = withoutEgressProxy ? [...POOL_ONLY_ARGS, ...EGRESS_PROXY_ARGS] : POOL_ONLY_ARGS;
  const noSandbox = process.getuid?.() === 0 || config.CHROMIUM_NO_SANDBOX ? ['--no-sandbox'] : [];
  const browser = await puppeteer.launch({
    ...(model
      ? { executablePath: model.argv[0], ignoreDefaultArgs: true, args: model.argv.slice(1).filter((arg) => !dropped.some((prefix) => arg.startsWith(prefix))) }
      : // No pool browser to copy (it runs elsewhere): puppeteer's defaults and the pool's own flags, as the pool launches.
        { executablePath: config.CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...noSandbox] }),
    headless: true,
    pipe: true,
    // A capture that hangs fails the bench in seconds rather than puppeteer's default 3 minutes.
    protocolTimeout: 30_000,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  return { browser, pid: browser.process()?.pid, model };
};

/**
 * One warm page per client, each in a context of its own like the pool's pages: pages sharing the
 * default context can stall each other's screenshots in headless Chromium.
 */
export const pagesOfTheirOwn = async (browser: Browser, count: number) => {
  const pages: Page[] = [];
  for (let i = 0; i < count; i++) pages.push(await (await browser.createBrowserContext()).newPage());
  return pages;
};

/** A Chromium just launched stays busy for seconds with its own start-up work: it is measured once quiet. */
export const settleRawChromium = async (sampler: BenchThread<SamplerRequest, unknown>) => {
  const started = performance.now();
  let idleCpu = Number.NaN;
  while (performance.now() - started < RAW_SETTLE_MAX_MS) {
    await sampler.call({ kind: 'start' });
    await sleep(1_000);
    const window = (await sampler.call({ kind: 'stop' })) as CpuWindow;
    idleCpu = window.families.rawChromium / window.seconds;
    if (idleCpu <= RAW_QUIET_CPU) break;
  }
  return { seconds: (performance.now() - started) / 1000, idleCpu };
};
