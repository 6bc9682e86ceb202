import path from 'node:path';
import { htmlDocument } from '../../../application/renders/html-document.js';
import { mustacheMerger } from '../../../infrastructure/templates/mustache-merger.js';
import { CARD_CSS, CARD_HTML, dataFor, HEIGHT, WIDTH } from '../card.js';
import { cpu, median, ms, percentile, print, runConcurrent, table } from '../measure.js';
import type { RenderBench } from './bench-context.js';
import { pagesOfTheirOwn, settleRawChromium, type RawChromium } from './raw-chromium.js';
import type { Scenario } from './scenario.js';

/** The card's raw and cache-miss runs, by clients. */
export const CONCURRENCY = [1, 4, 8] as const;
export type Concurrency = (typeof CONCURRENCY)[number];
/*
 * Each run ends at its count or its time, whichever comes first (renders in flight then finish):
 * the whole bench stays under a few minutes however slow the service is, and a fast one gets samples.
 */
const RAW_RUN = { maxMs: 4_000, maxCount: { 1: 80, 4: 200, 8: 300 } satisfies Record<Concurrency, number> };

export interface RawCardRun {
  readonly scenarios: Scenario[];
  /** How the raw side was set up, for the latency table's header. */
  readonly header: string;
  /** The single-client run's captures, split into loading the page and taking the screenshot. */
  readonly phases: { load: number; shot: number }[];
}

/** The card captured as JPEG by the raw browser on warm pages, reused by every render, at each concurrency. */
export const measureRawCard = async ({ config, card, sampler, measured, takeIndices }: RenderBench, { browser, pid, model }: RawChromium): Promise<RawCardRun> => {
  let header = model
    ? `raw: its own ${path.basename(model.argv[0] ?? 'chromium')} (pid ${pid}) launched with the exact command line of the pool's browser (pid ${model.pid}, ${model.argv.length - 1} args)`
    : `raw: its own Chromium (pid ${pid}) with puppeteer's defaults and the pool's CHROMIUM_ARGS (no pool browser found to copy)`;

  // Created and loaded before anything is measured.
  const maxClients = Math.max(...CONCURRENCY);
  const pages = await pagesOfTheirOwn(browser, maxClients);
  for (const page of pages) await page.setViewport({ width: WIDTH, height: HEIGHT, deviceScaleFactor: card.scaleFactor });
  header += `; one warm page per client (${maxClients} pages created before measuring, each reused; the pool has ${config.BROWSERS * config.PAGES_PER_BROWSER})`;
  const documentFor = (i: number) =>
    htmlDocument(mustacheMerger.merge(CARD_HTML, dataFor(i)), CARD_CSS, { width: WIDTH, height: HEIGHT, scaleFactor: card.scaleFactor, waitTime: 0 }).html;
  const phases: RawCardRun['phases'] = [];
  let recordPhases = false;
  const rawCapture = async (i: number, lane: number) => {
    const page = pages[lane];
    if (!page) throw new Error(`no warm page for client ${lane}`);
    const html = documentFor(i);
    const t0 = performance.now();
    await page.setContent(html);
    const t1 = performance.now();
    // captureBeyondViewport: false, as the pool captures: the page is exactly the viewport.
    await page.screenshot({ type: 'jpeg', quality: card.quality, optimizeForSpeed: true, captureBeyondViewport: false });
    const t2 = performance.now();
    if (recordPhases) phases.push({ load: t1 - t0, shot: t2 - t1 });
    return t2 - t0;
  };
  print('warming up the raw pages');
  await runConcurrent({ concurrency: maxClients, maxCount: maxClients * 3, maxMs: 30_000 }, (i, lane) => rawCapture(100_000 + i, lane));
  const settled = await settleRawChromium(sampler);
  header += `; measured after ${settled.seconds.toFixed(0)} s of settling (raw Chromium idle at ${cpu(settled.idleCpu)} CPU-s/s)`;

  print('measuring');
  const scenarios: Scenario[] = [];
  for (const concurrency of CONCURRENCY) {
    recordPhases = concurrency === 1;
    const base = takeIndices(RAW_RUN.maxCount[concurrency]);
    scenarios.push(
      await measured(`raw c${concurrency}`, 'raw', null, concurrency, async () => ({
        run: await runConcurrent({ concurrency, maxCount: RAW_RUN.maxCount[concurrency], maxMs: RAW_RUN.maxMs }, (i, lane) => rawCapture(base + i, lane)),
        clientCpu: 0,
      })),
    );
  }
  return { scenarios, header, phases };
};

export const printRawCardPhases = (phases: RawCardRun['phases']) => {
  print();
  print(`== raw capture at c1, n=${phases.length} (ms)`);
  print(table(['part', 'p50', 'p95'], [
    ['setContent (load event)', ms(median(phases.map((phase) => phase.load))), ms(percentile(phases.map((phase) => phase.load), 95))],
    ['screenshot (JPEG in Chromium)', ms(median(phases.map((phase) => phase.shot))), ms(percentile(phases.map((phase) => phase.shot), 95))],
  ]));
};
