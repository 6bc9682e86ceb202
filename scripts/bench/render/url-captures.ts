import { pdfViewport } from '../../../domain/renders/capture-events.js';
import { HEIGHT, WIDTH } from '../card.js';
import type { CaptureCall, CaptureKind, CaptureLoadRequest, CaptureRunReply, CaptureSample } from '../capture-load.worker.js';
import { print, runConcurrent } from '../measure.js';
import { startThread, type BenchThread } from '../threads.js';
import { indicesFrom, REQUEST_TIMEOUT_MS, type RenderBench, type RunBounds } from './bench-context.js';
import { launchRawChromium, pagesOfTheirOwn, settleRawChromium } from './raw-chromium.js';
import type { Scenario } from './scenario.js';

/*
 * URL captures (issue 24 item 6): POST /api/v1/screenshots (a PNG of the card's 1200x630) and
 * POST /api/v1/pdf (A4) of the bench card served as a web page from a local HTTP server, at 1 and
 * 8 clients, against raw puppeteer on warm pages of a Chromium with the pool's command line (minus
 * the egress proxy, which is the service's): page.goto + page.screenshot / page.pdf, the page going
 * straight from one capture's URL to the next. Template renders of the same card are measured in the
 * same section, for CPU per capture against CPU per render.
 */

const CAPTURE_PAGE_HOST = '127.0.0.3';
export const CAPTURE_CONCURRENCY = [1, 8] as const;
const RAW_CAPTURE_RUN = { 1: { maxMs: 5_000, maxCount: 60 }, 8: { maxMs: 6_000, maxCount: 300 } } as const;
const CAPTURE_RUN = { 1: { maxMs: 8_000, maxCount: 40 }, 8: { maxMs: 10_000, maxCount: 120 } } as const;
const WARM_UP = { maxMs: 20_000 };

/** The captured page is served on a loopback address of its own, which the service must be allowed to reach: set before it starts. */
export const allowCapturePageHost = () => {
  process.env.ALLOWED_PRIVATE_HOSTS = [process.env.ALLOWED_PRIVATE_HOSTS, CAPTURE_PAGE_HOST].filter(Boolean).join(',');
};

export interface CaptureRuns {
  /** Where the capture thread serves the card's page. */
  readonly pageBase: string;
  readonly raws: Scenario[];
  /** The raw single-client captures, split into the page's load and the capture. */
  readonly rawPhases: Record<CaptureKind, { load: number; capture: number }[]>;
  readonly services: Scenario[];
  /** Each service capture run's requests, by its label, for their workflow histories. */
  readonly samplesOf: Map<string, CaptureSample[]>;
  /** The card's template as JPEG, PNG and PDF renders (cache: false): what a capture's CPU is held to. */
  readonly templates: Scenario[];
  readonly pngTemplates: Scenario[];
  /** The card's template printed: issue 43 holds its CPU to the JPEG render's. */
  readonly pdfTemplates: Scenario[];
}

interface CaptureClient {
  readonly pageBase: string;
  /** The first of `count` page indices no earlier capture used. */
  takePages(count: number): number;
  /** CPU seconds the capture thread (client and page server) has used so far. */
  cpu(): Promise<number>;
  serviceRun(capture: CaptureCall, concurrency: number, limits: RunBounds): Promise<CaptureRunReply>;
}

const captureClient = async (thread: BenchThread<CaptureLoadRequest, unknown>, { serverUrl, apiKey, card }: RenderBench): Promise<CaptureClient> => {
  const pageBase = String(await thread.call({ kind: 'serve', host: CAPTURE_PAGE_HOST }));
  const takePages = indicesFrom(1_000_000);
  return {
    pageBase,
    takePages,
    cpu: async () => Number(await thread.call({ kind: 'cpu' })),
    serviceRun: async (capture, concurrency, limits) =>
      (await thread.call({ kind: 'run', baseUrl: serverUrl, apiKey, templateId: card.templateId, pageBase, capture, concurrency, ...limits, firstIndex: takePages(limits.maxCount), timeoutMs: REQUEST_TIMEOUT_MS })) as CaptureRunReply,
  };
};

/** page.goto + the capture on warm pages of the raw browser, launched for this section and closed after it. */
const measureRawCaptures = async (bench: RenderBench, client: CaptureClient): Promise<Pick<CaptureRuns, 'raws' | 'rawPhases'>> => {
  const { sampler, measured } = bench;
  const { browser, pid } = await launchRawChromium(bench, { withoutEgressProxy: true });
  const raws: Scenario[] = [];
  const rawPhases: CaptureRuns['rawPhases'] = { screenshot: [], pdf: [] };
  try {
    await sampler.call({ kind: 'rawBrowsers', pids: pid ? [pid] : [] });
    const maxClients = Math.max(...CAPTURE_CONCURRENCY);
    const pages = await pagesOfTheirOwn(browser, maxClients);
    let recordPhases = false;
    const rawCapture = async (capture: CaptureKind, i: number, lane: number) => {
      const page = pages[lane];
      if (!page) throw new Error(`no warm page for client ${lane}`);
      const t0 = performance.now();
      await page.goto(`${client.pageBase}/card/${i}`, { waitUntil: 'load' });
      const t1 = performance.now();
      if (capture === 'screenshot') await page.screenshot({ type: 'png', optimizeForSpeed: true, captureBeyondViewport: false });
      else await page.pdf({ width: '210mm', height: '297mm', printBackground: true, tagged: true, outline: true });
      const t2 = performance.now();
      if (recordPhases) rawPhases[capture].push({ load: t1 - t0, capture: t2 - t1 });
      return t2 - t0;
    };
    for (const capture of ['screenshot', 'pdf'] as const) {
      const viewport = capture === 'screenshot' ? { width: WIDTH, height: HEIGHT } : pdfViewport('A4');
      for (const page of pages) await page.setViewport(viewport);
      const base = client.takePages(1_000);
      await runConcurrent({ concurrency: maxClients, maxCount: maxClients * 3, maxMs: 30_000 }, (i, lane) => rawCapture(capture, base + i, lane));
      await settleRawChromium(sampler);
      for (const concurrency of CAPTURE_CONCURRENCY) {
        recordPhases = concurrency === 1;
        const limits = RAW_CAPTURE_RUN[concurrency];
        const first = client.takePages(limits.maxCount);
        raws.push(
          await measured(`raw ${capture} c${concurrency}`, 'raw-capture', capture === 'screenshot' ? 'image' : 'json', concurrency, async () => {
            const before = await client.cpu();
            const run = await runConcurrent({ concurrency, ...limits }, (i, lane) => rawCapture(capture, first + i, lane));
            return { run, clientCpu: (await client.cpu()) - before };
          }),
        );
        recordPhases = false;
      }
    }
  } finally {
    await browser.close().catch(() => undefined);
    await sampler.call({ kind: 'rawBrowsers', pids: [] });
  }
  return { raws, rawPhases };
};

const measureWithClient = async (bench: RenderBench, client: CaptureClient): Promise<CaptureRuns> => {
  const { measured, loadRun } = bench;
  /** A cache-miss template render of the card (json), the CPU a capture is compared with. */
  const renderTemplate = (concurrency: number, limits: RunBounds) => loadRun('miss', 'json', concurrency, limits);
  print('warming up the service\'s captures');
  await client.serviceRun('screenshot', 1, { ...WARM_UP, maxCount: 3 });
  await client.serviceRun('pdf', 1, { ...WARM_UP, maxCount: 2 });
  await client.serviceRun('screenshot', 4, { ...WARM_UP, maxCount: 8 });
  await client.serviceRun('pdf', 4, { ...WARM_UP, maxCount: 8 });
  await renderTemplate(4, { ...WARM_UP, maxCount: 8 });
  await client.serviceRun('png-render', 4, { ...WARM_UP, maxCount: 8 });
  await client.serviceRun('pdf-render', 4, { ...WARM_UP, maxCount: 8 });

  const { raws, rawPhases } = await measureRawCaptures(bench, client);

  const services: Scenario[] = [];
  const samplesOf = new Map<string, CaptureSample[]>();
  for (const capture of ['screenshot', 'pdf'] as const) {
    for (const concurrency of CAPTURE_CONCURRENCY) {
      services.push(
        await measured(`${capture} c${concurrency}`, 'capture', capture === 'screenshot' ? 'image' : 'json', concurrency, async () => {
          const reply = await client.serviceRun(capture, concurrency, CAPTURE_RUN[concurrency]);
          samplesOf.set(`${capture} c${concurrency}`, reply.samples);
          return { run: reply, clientCpu: reply.clientCpu };
        }),
      );
    }
  }
  const templates: Scenario[] = [];
  const pngTemplates: Scenario[] = [];
  const pdfTemplates: Scenario[] = [];
  for (const concurrency of CAPTURE_CONCURRENCY) {
    templates.push(
      await measured(`template render c${concurrency}`, 'miss', 'json', concurrency, async () => {
        const reply = await renderTemplate(concurrency, CAPTURE_RUN[concurrency]);
        return { run: reply, clientCpu: reply.clientCpu };
      }),
    );
    pngTemplates.push(
      await measured(`png template render c${concurrency}`, 'miss', 'image', concurrency, async () => {
        const reply = await client.serviceRun('png-render', concurrency, CAPTURE_RUN[concurrency]);
        return { run: reply, clientCpu: reply.clientCpu };
      }),
    );
    pdfTemplates.push(
      await measured(`pdf template render c${concurrency}`, 'miss', 'json', concurrency, async () => {
        const reply = await client.serviceRun('pdf-render', concurrency, CAPTURE_RUN[concurrency]);
        return { run: reply, clientCpu: reply.clientCpu };
      }),
    );
  }
  return { pageBase: client.pageBase, raws, rawPhases, services, samplesOf, templates, pngTemplates, pdfTemplates };
};

/** The section's measurements, with the capture thread (the page's server and the client) stopped after them. */
export const measureCaptures = async (bench: RenderBench): Promise<CaptureRuns> => {
  print();
  print('== URL captures');
  const thread: BenchThread<CaptureLoadRequest, unknown> = startThread(new URL('../capture-load.worker.ts', import.meta.url));
  try {
    return await measureWithClient(bench, await captureClient(thread, bench));
  } finally {
    await thread.stop();
  }
};
