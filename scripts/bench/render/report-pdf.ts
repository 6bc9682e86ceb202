import type { Browser } from 'puppeteer-core';
import { htmlDocument } from '../../../application/renders/html-document.js';
import { countPdfPages } from '../../../infrastructure/rendering/pdf-pages.js';
import { mustacheMerger } from '../../../infrastructure/templates/mustache-merger.js';
import { cpu, ms, print, ratio, runConcurrent, table } from '../measure.js';
import { REPORT_CSS, REPORT_HEIGHT, REPORT_HTML, REPORT_PAGES, REPORT_WIDTH } from '../report.js';
import { REQUEST_TIMEOUT_MS, type ApiCall, type RenderBench } from './bench-context.js';
import type { Scenario } from './scenario.js';

/*
 * A 50-page PDF (an A4 report, scripts/bench/report.ts): the service's render beside Chromium's own
 * page.pdf of the same document on a warm page of the raw browser, one document at a time.
 */

/** One document at a time, a few times: each print takes a second or more. */
const PDF_RUN = { concurrency: 1, maxCount: 6, maxMs: 30_000 };
const PDF_WARM_UP = 2;
/** The same print options as the service's, for Chromium's own page.pdf. */
const REPORT_PRINT = {
  width: `${REPORT_WIDTH}px`,
  height: `${REPORT_HEIGHT}px`,
  preferCSSPageSize: true,
  printBackground: true,
  tagged: true,
  outline: true,
} as const;

/** The report as an html-editor template printed to PDF; its id. */
export const createReportTemplate = async (call: ApiCall) => {
  const report = await call('POST', '/api/v2/my-templates', { name: 'Bench report', width: REPORT_WIDTH, height: REPORT_HEIGHT, editor: 'html-editor', outputFormat: 'pdf' });
  const reportId = String(report.identifier);
  await call('PUT', `/api/v2/my-templates/${reportId}/html-editor`, { html: REPORT_HTML, css: REPORT_CSS, sampleData: { title: 'the annual report' } });
  return reportId;
};

/** The same document as the service's, for Chromium's own page.pdf. */
const reportDocument = (i: number) =>
  htmlDocument(mustacheMerger.merge(REPORT_HTML, { title: `report ${i}` }), REPORT_CSS, { width: REPORT_WIDTH, height: REPORT_HEIGHT, scaleFactor: 1, waitTime: 0, paged: true }).html;

/** Chromium's own print of the report: setContent and page.pdf on a warm page, as the card's raw capture. */
export const measureRawReportPdf = async ({ measured }: RenderBench, browser: Browser): Promise<Scenario> => {
  const reportPage = await (await browser.createBrowserContext()).newPage();
  await reportPage.setViewport({ width: REPORT_WIDTH, height: REPORT_HEIGHT });
  const rawPrint = async (i: number) => {
    const started = performance.now();
    await reportPage.setContent(reportDocument(i));
    const pdf = await reportPage.pdf(REPORT_PRINT);
    const pages = countPdfPages(pdf);
    if (pages !== REPORT_PAGES) throw new Error(`the raw report printed ${pages} pages, not ${REPORT_PAGES}`);
    return performance.now() - started;
  };
  for (let i = 0; i < PDF_WARM_UP; i++) await rawPrint(200_000 + i);
  return measured(`raw pdf ${REPORT_PAGES} pages c1`, 'raw-pdf', null, 1, async () => ({
    run: await runConcurrent(PDF_RUN, (i) => rawPrint(210_000 + i)),
    clientCpu: 0,
  }));
};

export const measureServiceReportPdf = async ({ serverUrl, apiKey, reportId, measured }: RenderBench): Promise<Scenario> => {
  /** The report as the service renders it (a fresh title each time, so nothing is cached), answered with its bytes. */
  const renderReport = async (i: number) => {
    const started = performance.now();
    const response = await fetch(`${serverUrl}/api/v2/render?output=image`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template: reportId, cache: false, data: { title: `report ${i}` } }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const pdf = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`the report render answered ${response.status}: ${pdf.toString()}`);
    return { ms: performance.now() - started, pages: countPdfPages(pdf) };
  };
  for (let i = 0; i < PDF_WARM_UP; i++) {
    const { pages } = await renderReport(300_000 + i);
    if (pages !== REPORT_PAGES) throw new Error(`the service's report has ${pages} pages, not ${REPORT_PAGES}`);
  }
  // The client here is this thread's fetch: its CPU counts in node (a few milliseconds per render of seconds).
  return measured(`service pdf ${REPORT_PAGES} pages c1`, 'pdf', 'image', 1, async () => ({
    run: await runConcurrent(PDF_RUN, async (i) => (await renderReport(310_000 + i)).ms),
    clientCpu: 0,
  }));
};

export const printReportPdf = (rawPdf: Scenario, servicePdf: Scenario) => {
  print();
  print(`== ${REPORT_PAGES}-page PDF: an A4 report (a heading, prose, a 12-row table and a link per page; @page margin boxes), c1`);
  print("   raw = setContent(html) + page.pdf({ preferCSSPageSize, printBackground, tagged, outline }) on a warm page of the raw browser");
  print("   service = POST /api/v2/render?output=image, cache: false (written over the host's document when script-free, navigated to otherwise; break census, print bounded to PDF_MAX_PAGES + 1 pages, page count)");
  print(table(
    ['scenario', 'n', 'p50 ms', 'p95 ms', 'chromium CPU-s', 'node CPU-s', 'temporal', 'postgres', 'total CPU-s'],
    [rawPdf, servicePdf].map(({ label, stats, cpu: c }) => [label, String(stats.n), ms(stats.p50), ms(stats.p95), cpu(c.chromium), cpu(c.node), cpu(c.temporal), cpu(c.postgres), cpu(c.total)]),
  ));
  print(
    `   service vs raw: p50 ${ratio(servicePdf.stats.p50 / rawPdf.stats.p50)} (+${ms(servicePdf.stats.p50 - rawPdf.stats.p50)} ms), ` +
      `Chromium CPU ${ratio(servicePdf.cpu.chromium / rawPdf.cpu.chromium)}, total CPU ${ratio(servicePdf.cpu.total / rawPdf.cpu.total)}`,
  );
};
