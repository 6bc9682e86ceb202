import os from 'node:os';
import { HEIGHT, WIDTH } from '../card.js';
import type { CaptureKind, CaptureSample } from '../capture-load.worker.js';
import { latencyRow, median, ms, percentile, print, ratio, table, verdict } from '../measure.js';
import type { RenderBench } from './bench-context.js';
import { CPU_COLUMNS, cpuCells, cpuSplit, type Scenario } from './scenario.js';
import { CAPTURE_CONCURRENCY, type CaptureRuns } from './url-captures.js';
import { timedEvents } from '../workflow-history.js';

// The URL captures section's report (url-captures.ts measures it): tables, each capture's workflow steps, issue 24's and 43's targets.

const CAPTURE_TARGETS = { capturesPerSecondAtC8: 2.5, throughputVsRawAtC8: 0.7, cpuVsTemplateRender: 1.5 };
/** Issue 43: a template printed to PDF costs at most this much of the CPU of the same card as an image. */
const TEMPLATE_PDF_CPU_VS_IMAGE = 1.2;

const kindOf = (scenario: Scenario): CaptureKind => (scenario.output === 'image' ? 'screenshot' : 'pdf');

/** Where a capture's time goes outside the page: its workflow history. */
const stepsOf = async ({ temporal }: RenderBench, samples: readonly CaptureSample[]) => {
  const steps = new Map<string, number[]>();
  const add = (step: string, value: number) => steps.set(step, [...(steps.get(step) ?? []), value]);
  const counts: number[] = [];
  for (const sample of samples) {
    const history = await temporal.client.workflow.getHandle(sample.requestId).fetchHistory().catch(() => undefined);
    const events = timedEvents(history?.events ?? []);
    if (events.length === 0) continue;
    counts.push(events.length);
    const at = (type: string) => events.find((event) => event.type === type)?.at ?? Number.NaN;
    /** Summed over every workflow task: from one event of a task to the next. */
    const tasks = (from: string, to: string) =>
      events.reduce((sum, event, index) => (event.type === from ? sum + (events.slice(index).find((next) => next.type === to)?.at ?? Number.NaN) - event.at : sum), 0);
    add('HTTP in -> workflow started (auth, URL check, CaptureRequested, start RPC)', at('WorkflowExecutionStarted') - sample.sentAt);
    add('workflow tasks waiting for the worker (scheduled -> started, all tasks)', tasks('WorkflowTaskScheduled', 'WorkflowTaskStarted'));
    add('workflow tasks on the worker (started -> completed, all tasks; local activities run inside)', tasks('WorkflowTaskStarted', 'WorkflowTaskCompleted'));
    if (events.some((event) => event.type === 'ActivityTaskScheduled')) {
      add('workflow started -> capture activity scheduled (charge)', at('ActivityTaskScheduled') - at('WorkflowExecutionStarted'));
      add('activity dispatch (scheduled -> started)', at('ActivityTaskStarted') - at('ActivityTaskScheduled'));
      add('capture activity (started -> completed: pool queue, page, capture, storage)', at('ActivityTaskCompleted') - at('ActivityTaskStarted'));
      add('activity completed -> workflow completed (record)', at('WorkflowExecutionCompleted') - at('ActivityTaskCompleted'));
    }
    add('workflow completed -> HTTP answer received', sample.receivedAt - at('WorkflowExecutionCompleted'));
    add('total (client)', sample.receivedAt - sample.sentAt);
  }
  return { steps, counts };
};

/** Each run's counterparts: the raw run of its kind and the template renders of its concurrency. */
const counterpartsIn = ({ raws, services, templates, pngTemplates, pdfTemplates }: CaptureRuns) => ({
  rawOf: (scenario: Scenario) => raws.find((raw) => kindOf(raw) === kindOf(scenario) && raw.concurrency === scenario.concurrency),
  serviceAt: (capture: CaptureKind, concurrency: number) => services.find((scenario) => kindOf(scenario) === capture && scenario.concurrency === concurrency),
  templateAt: (concurrency: number) => templates.find((scenario) => scenario.concurrency === concurrency),
  pngTemplateAt: (concurrency: number) => pngTemplates.find((png) => png.concurrency === concurrency),
  pdfTemplateAt: (concurrency: number) => pdfTemplates.find((pdf) => pdf.concurrency === concurrency),
});

const printCaptureTables = ({ config }: RenderBench, runs: CaptureRuns) => {
  const { pageBase, raws, rawPhases, services, templates, pngTemplates, pdfTemplates } = runs;
  const { rawOf, templateAt, pngTemplateAt } = counterpartsIn(runs);
  const all = [...raws, ...services, ...templates, ...pngTemplates, ...pdfTemplates];
  print();
  print(`== URL captures of the ${WIDTH}x${HEIGHT} card served from ${pageBase} (one organization, pool ${config.BROWSERS} x ${config.PAGES_PER_BROWSER} pages)`);
  print("   raw screenshot = page.goto(url, { waitUntil: 'load' }) + page.screenshot({ type: 'png', optimizeForSpeed: true, captureBeyondViewport: false })");
  print("   raw pdf = page.goto(url, { waitUntil: 'load' }) + page.pdf({ A4, printBackground, tagged, outline }); one warm page per client, straight from URL to URL");
  print('   screenshot = POST /api/v1/screenshots { url, width: 1200, height: 630 }; pdf = POST /api/v1/pdf { url, format: A4 }; each answered when stored');
  print('   template render = POST /api/v2/render of the same card (cache: false, JPEG), json; png and pdf template render: the same as PNG and as PDF, json');
  print(table(
    ['scenario', 'n', 'p50 ms', 'p95 ms', 'per s', 'p50 vs raw', 'per s vs raw'],
    all.map((scenario) => latencyRow(scenario.label, scenario.stats, scenario.kind === 'capture' ? rawOf(scenario)?.stats : undefined, 2)),
  ));
  print();
  print(`== CPU-seconds per capture by process family (as above; the page server and HTTP client thread not counted)`);
  print(table(
    ['scenario', ...CPU_COLUMNS, 'total vs raw', 'total vs template render', 'vs png template render', 'new chromium procs'],
    all.map((scenario) => {
      const { cpu: c } = scenario;
      const raw = scenario.kind === 'capture' ? rawOf(scenario) : undefined;
      const template = scenario.kind === 'capture' || pdfTemplates.includes(scenario) ? templateAt(scenario.concurrency) : undefined;
      const pngTemplate = scenario.kind === 'capture' ? pngTemplateAt(scenario.concurrency) : undefined;
      return [
        scenario.label,
        ...cpuCells(c),
        raw ? ratio(c.total / raw.cpu.total) : '',
        template ? ratio(c.total / template.cpu.total) : '',
        pngTemplate ? ratio(c.total / pngTemplate.cpu.total) : '',
        c.newChromiumProcesses.toFixed(2),
      ];
    }),
  ));
  print();
  print(`== raw capture at c1 (ms)`);
  print(table(['part', 'p50', 'p95'], (['screenshot', 'pdf'] as const).flatMap((capture) => {
    const phases = rawPhases[capture];
    return [
      [`${capture}: goto (load event)`, ms(median(phases.map((phase) => phase.load))), ms(percentile(phases.map((phase) => phase.load), 95))],
      [`${capture}: ${capture === 'screenshot' ? 'screenshot (PNG)' : 'page.pdf'}`, ms(median(phases.map((phase) => phase.capture))), ms(percentile(phases.map((phase) => phase.capture), 95))],
    ];
  })));
};

const printCaptureSteps = async (bench: RenderBench, { samplesOf }: CaptureRuns) => {
  const runs = [...samplesOf.keys()];
  const breakdowns = await Promise.all(runs.map((run) => stepsOf(bench, samplesOf.get(run) ?? [])));
  print();
  print(`== where a capture spends its time (workflow history; p50 ms, history events per capture: ${breakdowns.map((b, i) => `${runs[i]} ${median(b.counts)}`).join(', ')})`);
  const stepNames = [...new Set(breakdowns.flatMap((b) => [...b.steps.keys()]))];
  print(table(['step', ...runs], stepNames.map((step) => [step, ...breakdowns.map((b) => ms(median((b.steps.get(step) ?? []).filter(Number.isFinite))))])));
};

const printCaptureTargets = (runs: CaptureRuns) => {
  const { rawOf, serviceAt, templateAt, pngTemplateAt, pdfTemplateAt } = counterpartsIn(runs);
  print();
  print('== targets of issue 24 item 6 (2 cores, same run)');
  const rows: string[][] = [];
  for (const capture of ['screenshot', 'pdf'] as const) {
    const c8 = serviceAt(capture, 8);
    const raw = c8 ? rawOf(c8) : undefined;
    const rate = c8?.stats.perSecond ?? Number.NaN;
    const share = rate / (raw?.stats.perSecond ?? Number.NaN);
    rows.push([`${capture}s per second at c8`, rate.toFixed(2), `>= ${CAPTURE_TARGETS.capturesPerSecondAtC8}`, verdict(rate >= CAPTURE_TARGETS.capturesPerSecondAtC8)]);
    rows.push([`${capture} throughput at c8 vs raw`, `${(share * 100).toFixed(0)}%`, `>= ${CAPTURE_TARGETS.throughputVsRawAtC8 * 100}%`, verdict(share >= CAPTURE_TARGETS.throughputVsRawAtC8)]);
    for (const concurrency of CAPTURE_CONCURRENCY) {
      const scenario = serviceAt(capture, concurrency);
      const cpuVs = (template: Scenario | undefined) => (scenario?.cpu.total ?? Number.NaN) / (template?.cpu.total ?? Number.NaN);
      // A screenshot is a PNG (the API offers it in no other format): its template render is the same card as a PNG, whose encoding alone costs more than a JPEG's.
      const [format, template] = capture === 'screenshot' ? ['PNG', pngTemplateAt(concurrency)] : ['JPEG', templateAt(concurrency)];
      const vs = cpuVs(template);
      rows.push([`${capture} CPU per capture vs ${format} template render, c${concurrency}`, ratio(vs), `<= ${CAPTURE_TARGETS.cpuVsTemplateRender}x`, verdict(vs <= CAPTURE_TARGETS.cpuVsTemplateRender)]);
      if (capture === 'screenshot') rows.push([`  (the same against the JPEG template render, c${concurrency})`, ratio(cpuVs(templateAt(concurrency))), '', '']);
    }
  }
  for (const concurrency of CAPTURE_CONCURRENCY) {
    const vs = (pdfTemplateAt(concurrency)?.cpu.total ?? Number.NaN) / (templateAt(concurrency)?.cpu.total ?? Number.NaN);
    rows.push([`template PDF CPU per render vs the JPEG render of the card, c${concurrency} (issue 43)`, ratio(vs), `<= ${TEMPLATE_PDF_CPU_VS_IMAGE}x`, verdict(vs <= TEMPLATE_PDF_CPU_VS_IMAGE)]);
  }
  print(table(['target', 'measured', 'goal', ''], rows));
  // A miss names the processes its CPU went to, against the side it is measured by.
  const why: string[] = [];
  for (const capture of ['screenshot', 'pdf'] as const) {
    const c8 = serviceAt(capture, 8);
    const raw = c8 ? rawOf(c8) : undefined;
    if (c8 && raw && c8.stats.perSecond / raw.stats.perSecond < CAPTURE_TARGETS.throughputVsRawAtC8) {
      const ceiling = os.cpus().length / c8.cpu.total;
      why.push(
        `${capture} throughput at c8: a capture costs the service ${cpuSplit(c8.cpu)} against raw goto + capture's ${cpuSplit(raw.cpu)}; ` +
          `the service's CPU allows at most ${ceiling.toFixed(1)}/s on these cores (measured ${c8.stats.perSecond.toFixed(1)}), ${(CAPTURE_TARGETS.throughputVsRawAtC8 * 100).toFixed(0)}% of raw would be ${(CAPTURE_TARGETS.throughputVsRawAtC8 * raw.stats.perSecond).toFixed(1)}/s`,
      );
    }
  }
  for (const concurrency of CAPTURE_CONCURRENCY) {
    const pdf = pdfTemplateAt(concurrency);
    const jpeg = templateAt(concurrency);
    if (pdf && jpeg && pdf.cpu.total / jpeg.cpu.total > TEMPLATE_PDF_CPU_VS_IMAGE) {
      why.push(`template PDF at c${concurrency}: ${cpuSplit(pdf.cpu)} against the JPEG's ${cpuSplit(jpeg.cpu)}; what Chromium adds is its print layout and Skia's PDF backend, which rasterizes what PDF cannot express (this card's blurred text-shadow)`);
    }
  }
  if (why.length > 0) print('   why these miss (this run\'s CPU per request):');
  for (const line of why) print(`   - ${line}`);
};

export const printCaptures = async (bench: RenderBench, runs: CaptureRuns) => {
  printCaptureTables(bench, runs);
  await printCaptureSteps(bench, runs);
  printCaptureTargets(runs);
};
