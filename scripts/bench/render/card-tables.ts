import { HEIGHT, WIDTH } from '../card.js';
import type { CpuWindow } from '../cpu-sampler.worker.js';
import { cpu, latencyRow, median, print, ratio, table } from '../measure.js';
import { CLOCK_TICKS } from '../process-cpu.js';
import type { RenderBench } from './bench-context.js';
import { HIT_WINDOWS } from './cache-hits.js';
import { IDLE_WINDOW_MS } from './cache-misses.js';
import { CPU_COLUMNS, CPU_TAIL_MS, cpuCells, rawCardAt, type Scenario } from './scenario.js';

// The card's raw, miss, hit and bare-http runs side by side: latency and throughput, then CPU per render.

/** `rawHeader` is null when only hits were measured (no raw runs, no misses). */
export const printLatencyTable = ({ card }: RenderBench, scenarios: readonly Scenario[], rawHeader: string | null, uncachedHits: number) => {
  print();
  print(`== latency and throughput: ${WIDTH}x${HEIGHT} card, JPEG quality ${card.quality}, scale ${card.scaleFactor}`);
  if (rawHeader !== null) {
    print(`   ${rawHeader}`);
    print("   raw render = page.setContent(html) + page.screenshot({ type: 'jpeg', quality, optimizeForSpeed: true, captureBeyondViewport: false }): Chromium's own JPEG, no re-encode");
    print('   miss = POST /api/v2/render, cache: false, new data each request (?output=image returns the JPEG itself)');
  }
  print(`   hit = POST /api/v2/render of one identical request, repeated; the median of ${HIT_WINDOWS} windows`);
  print("   bare http = the hit's request to a bare node:http server in the service's thread, which parses it and answers a JSON of the same shape: a hit's floor on this machine");
  print(table(
    ['scenario', 'n', 'p50 ms', 'p95 ms', 'renders/s', 'p50 vs raw', 'r/s vs raw'],
    scenarios.map((scenario) => latencyRow(scenario.label, scenario.stats, scenario.kind === 'miss' ? rawCardAt(scenarios, scenario.concurrency)?.stats : undefined, 1)),
  ));
  if (uncachedHits > 0) print(`   warning: ${uncachedHits} repeated requests were not answered from the cache`);
};

/** `idle` is the service's CPU with nothing asked of it, when it was measured. */
export const printCpuTable = (scenarios: readonly Scenario[], idle: CpuWindow | null) => {
  print();
  print(`== CPU-seconds per render by process family (counter deltas over each run and a ${CPU_TAIL_MS} ms tail; /proc sampled every 100 ms)`);
  print('   chromium: the scenario\'s browser and all its descendants, exited renderers included; node: this process minus the bench\'s client and sampler threads;');
  print('   temporal: the dev server (and its watchdog); postgres: postmaster and backends; other: the other side\'s idle Chromium and any other child');
  print(table(
    ['scenario', ...CPU_COLUMNS, 'chromium vs raw', 'total vs raw', 'new chromium procs/render'],
    scenarios.map(({ label, kind, concurrency, cpu: c }) => {
      const raw = kind === 'miss' ? rawCardAt(scenarios, concurrency) : undefined;
      return [
        label,
        ...cpuCells(c),
        raw ? ratio(c.chromium / raw.cpu.chromium) : '',
        raw ? ratio(c.total / raw.cpu.total) : '',
        c.newChromiumProcesses.toFixed(2),
      ];
    }),
  ));
  const serviceRuns = scenarios.filter((scenario) => scenario.kind !== 'raw');
  const clientPerRequest = median(serviceRuns.map((scenario) => scenario.cpu.client));
  const samplerShare = scenarios.reduce((sum, scenario) => sum + scenario.window.sampler, 0) / scenarios.reduce((sum, scenario) => sum + scenario.window.seconds, 0);
  print(`   not counted above: the bench's HTTP client thread ${cpu(clientPerRequest)} CPU-s per request (median over runs); the sampler thread ${(samplerShare * 100).toFixed(1)}% of a core (clock tick ${1000 / CLOCK_TICKS} ms)`);
  if (idle) {
    const perSecond = (value: number) => cpu(value / idle.seconds);
    print(
      `   the service idle (${IDLE_WINDOW_MS} ms before measuring), CPU-s per second: chromium ${perSecond(idle.families.chromium)}, ` +
        `node ${perSecond(idle.process - idle.sampler)}, temporal ${perSecond(idle.families.temporal)}, postgres ${perSecond(idle.families.postgres)}, other ${perSecond(idle.families.other)}`,
    );
  }
};
