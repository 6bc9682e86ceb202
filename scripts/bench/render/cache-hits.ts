import { setTimeout as sleep } from 'node:timers/promises';
import { startBareHttpServer } from '../bare-http.js';
import { HIT_DATA } from '../card.js';
import { median, ms, print } from '../measure.js';
import { REQUEST_TIMEOUT_MS, type RenderBench } from './bench-context.js';
import { findScenario, type Scenario } from './scenario.js';

export const HIT_CONCURRENCY = [1, 8] as const;
const HIT_RUN = { 1: { maxMs: 2_500, maxCount: 800 }, 8: { maxMs: 3_500, maxCount: 5_000 } } as const;
/**
 * Hits are measured in this many windows per concurrency and the median window (by hits per second)
 * is reported with the others beside it: the same code's rate moves a lot between windows seconds
 * apart on this kind of machine, and one window read as the figure was one draw of that.
 */
export const HIT_WINDOWS = 3;

export interface HitRun {
  /** The median window of hits at each concurrency, then bare node:http's at each. */
  readonly scenarios: Scenario[];
  /** Repeated requests the cache did not answer. */
  readonly uncached: number;
  /** At one client: the render use case's durations, and the store appends made inside them. */
  readonly parts: { readonly service: number[]; readonly append: number[] };
  /** Database round trips per hit by concurrency: in the request, and in all (projections included). */
  readonly roundTrips: Map<number, { request: number; all: number }>;
  /** Each window's hits per second, by concurrency. */
  readonly windows: Map<number, number[]>;
}

/** One identical render request repeated, against the same request answered by node:http alone. */
export const measureHits = async ({ call, card, apiKey, probes, load, stops, measured, loadRun }: RenderBench): Promise<HitRun> => {
  // A hit needs the first render in the results read model, which the projection fills shortly after.
  const hitBody = { template: card.templateId, outputFormat: 'jpeg', data: HIT_DATA };
  await call('POST', '/api/v2/render', hitBody);
  for (let attempt = 0; (await call('POST', '/api/v2/render', hitBody)).cached !== true; attempt++) {
    if (attempt >= 50) throw new Error('the render cache never answered an identical request');
    await sleep(100);
  }
  await loadRun('hit', 'json', 4, { maxMs: 10_000, maxCount: 200 });
  const scenarios: Scenario[] = [];
  let uncached = 0;
  const parts = { service: [] as number[], append: [] as number[] };
  const roundTrips = new Map<number, { request: number; all: number }>();
  const windows = new Map<number, number[]>();
  for (const concurrency of HIT_CONCURRENCY) {
    const single = concurrency === 1;
    const firstCall = probes.storeCalls.length;
    const tripsBefore = { ...probes.roundTrips };
    probes.serviceTimes = single ? parts.service : null;
    probes.recordStoreCalls = single;
    const measuredWindows: Scenario[] = [];
    for (let window = 0; window < HIT_WINDOWS; window++) {
      measuredWindows.push(
        await measured(`hit json c${concurrency}`, 'hit', 'json', concurrency, async () => {
          const reply = await loadRun('hit', 'json', concurrency, HIT_RUN[concurrency]);
          uncached += reply.samples.filter((sample) => !sample.cached).length;
          return { run: reply, clientCpu: reply.clientCpu };
        }),
      );
    }
    windows.set(concurrency, measuredWindows.map((window) => window.stats.perSecond));
    const medianWindow = [...measuredWindows].sort((a, b) => a.stats.perSecond - b.stats.perSecond)[Math.floor(measuredWindows.length / 2)];
    if (medianWindow) scenarios.push(medianWindow);
    const hits = measuredWindows.reduce((sum, window) => sum + window.stats.n, 0);
    roundTrips.set(concurrency, { request: (probes.roundTrips.request - tripsBefore.request) / hits, all: (probes.roundTrips.all - tripsBefore.all) / hits });
    probes.recordStoreCalls = false;
    probes.serviceTimes = null;
    if (single) parts.append.push(...probes.storeCalls.slice(firstCall).filter((entry) => entry.op === 'append').map((entry) => entry.end - entry.start));
  }
  // The floor of a hit on this machine: the same request answered by node:http alone.
  const bare = await startBareHttpServer();
  stops.push(() => bare.close());
  for (const concurrency of HIT_CONCURRENCY) {
    scenarios.push(
      await measured(`bare http c${concurrency}`, 'bare-http', 'json', concurrency, async () => {
        const reply = await load.call({ baseUrl: bare.url, apiKey, templateId: card.templateId, path: 'bare', output: 'json', concurrency, ...HIT_RUN[concurrency], firstIndex: 0, timeoutMs: REQUEST_TIMEOUT_MS });
        return { run: reply, clientCpu: reply.clientCpu };
      }),
    );
  }
  return { scenarios, uncached, parts, roundTrips, windows };
};

export const printCacheHits = ({ scenarios, parts, roundTrips, windows }: HitRun) => {
  const hitAt = (concurrency: number) => findScenario(scenarios, 'hit', 'json', concurrency);
  print();
  print('== cache hit at c1');
  const hitC1P50 = hitAt(1)?.stats.p50 ?? Number.NaN;
  for (const [concurrency, trips] of roundTrips) {
    const c = hitAt(concurrency)?.cpu;
    print(`   c${concurrency}: database round trips per hit ${trips.request.toFixed(2)} in the request, ${trips.all.toFixed(2)} in all (projections included); CPU per hit ${ms((c?.total ?? Number.NaN) * 1000)} ms (node ${ms((c?.node ?? Number.NaN) * 1000)}, postgres ${ms((c?.postgres ?? Number.NaN) * 1000)})`);
  }
  for (const concurrency of HIT_CONCURRENCY) {
    const hit = hitAt(concurrency);
    const floor = findScenario(scenarios, 'bare-http', 'json', concurrency);
    if (!hit || !floor) continue;
    print(
      `   c${concurrency} against bare node:http: p50 ${ms(hit.stats.p50)} vs ${ms(floor.stats.p50)} ms, ${hit.stats.perSecond.toFixed(0)} vs ${floor.stats.perSecond.toFixed(0)} per s (${((hit.stats.perSecond / floor.stats.perSecond) * 100).toFixed(0)}%), ` +
        `node CPU per request ${ms(hit.cpu.node * 1000)} vs ${ms(floor.cpu.node * 1000)} ms`,
    );
  }
  for (const [concurrency, rates] of windows) print(`   c${concurrency} windows: ${rates.map((rate) => rate.toFixed(0)).join(' / ')} hits per s (the median window is reported)`);
  print(`   render use case p50 ${ms(median(parts.service))} ms (of which appends p50 ${ms(median(parts.append))} ms, ${(parts.append.length / Math.max(1, parts.service.length)).toFixed(1)} per hit); HTTP, auth and logging around it ${ms(hitC1P50 - median(parts.service))} ms`);
};
