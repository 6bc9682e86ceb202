/**
 * npm run bench:gotenberg: issue 43's comparison with Gotenberg, one system at a time on this machine.
 *
 * First the service as `npm start` runs it (scripts/bench/npm-start-service.ts: a process of its own
 * with its Chromium, PostgreSQL and Temporal), loaded with the bench card (scripts/bench/card.ts) as
 * template renders, each a cache miss (cache: false, a title of its own), answered as JSON like
 * bench:render's template figures: PDFs, then JPEGs. Then Gotenberg from GOTENBERG_BIN, with full
 * Chromium (/usr/bin/chromium, as its Docker image runs it) at GOTENBERG_CONCURRENCY (4) conversions at
 * a time, sent the very document the service renders (the card's data merged into it, a title of its
 * own per request): /forms/chromium/convert/html for PDFs of the card's size, /forms/chromium/screenshot/html
 * for JPEGs. Each at GOTENBERG_CLIENTS (8) clients for GOTENBERG_SECONDS (30) after a warm-up.
 *
 * For each: requests/s, p50/p95, CPU-seconds per request of the system's whole process tree (its root
 * process and every family under it, from /proc as scripts/bench/process-cpu.ts explains) and its peak
 * summed PSS while loaded (scripts/bench/memory-sampler.ts); then issue 43's ratios. A benchmark: it
 * prints the goals beside the figures and fails only when a system does. GOTENBERG_ARGS adds flags to
 * Gotenberg's command line (e.g. --chromium-restart-after=0); GOTENBERG_CHROMIUM replaces its Chromium.
 * Without GOTENBERG_BIN it says how to build Gotenberg and exits 2.
 *
 * The phase both systems go through, each system and the report are modules of scripts/bench/gotenberg/;
 * this file runs them in turn and stops the sampler however it ends.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import type { SamplerRequest } from './bench/cpu-sampler.worker.js';
import { benchGotenberg } from './bench/gotenberg/gotenberg-system.js';
import { report } from './bench/gotenberg/gotenberg-report.js';
import { phaseMeasurer, type Phase } from './bench/gotenberg/phase.js';
import { benchService } from './bench/gotenberg/service-system.js';
import { print } from './bench/measure.js';
import { startThread, type BenchThread } from './bench/threads.js';

const GOTENBERG_BIN = process.env.GOTENBERG_BIN ?? '';
const SECONDS = Number(process.env.GOTENBERG_SECONDS ?? 30);
const CLIENTS = Number(process.env.GOTENBERG_CLIENTS ?? 8);
/** Issue 43: Gotenberg's Chromium at 4 conversions at a time (its own default is 6). */
const GOTENBERG_CONCURRENCY = Number(process.env.GOTENBERG_CONCURRENCY ?? 4);
/**
 * The two systems in turn this many times (service, Gotenberg, service, ...): the machine's speed
 * drifts over minutes, and one pair can land in different phases of it; the goals use the medians.
 */
const ROUNDS = Number(process.env.GOTENBERG_ROUNDS ?? 1);

if (!GOTENBERG_BIN || !existsSync(GOTENBERG_BIN)) {
  process.stderr.write(
    `bench:gotenberg needs a Gotenberg binary: set GOTENBERG_BIN to its path (${GOTENBERG_BIN ? `${GOTENBERG_BIN} does not exist` : 'unset'}).\n` +
      'Build it from its source at the tag compared (issue 43: v8.36.0), in its checkout: CGO_ENABLED=0 go build -o /tmp/gotenberg-bin/gotenberg ./cmd/gotenberg\n',
  );
  process.exit(2);
}

const gotenberg = {
  binary: GOTENBERG_BIN,
  concurrency: GOTENBERG_CONCURRENCY,
  chromium: process.env.GOTENBERG_CHROMIUM ?? '/usr/bin/chromium',
  args: (process.env.GOTENBERG_ARGS ?? '').split(/\s+/).filter(Boolean),
};
const sampler: BenchThread<SamplerRequest, unknown> = startThread(new URL('./bench/cpu-sampler.worker.ts', import.meta.url));
const measure = phaseMeasurer({ sampler, clients: CLIENTS, seconds: SECONDS });
const started = performance.now();
try {
  print(`bench:gotenberg: ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}, ${CLIENTS} clients, ${SECONDS} s per phase, ${os.cpus().length} cores, node ${process.version}; Gotenberg from ${GOTENBERG_BIN}`);
  const phases: Phase[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const service = await benchService(measure, round);
    phases.push(...service.phases, ...(await benchGotenberg(measure, round, gotenberg, service)));
  }
  report(phases, { clients: CLIENTS, seconds: SECONDS, rounds: ROUNDS, concurrency: GOTENBERG_CONCURRENCY });
  print();
  print(`bench finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  process.exitCode = 1;
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await sampler.stop();
}
