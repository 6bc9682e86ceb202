import os from 'node:os';
import { cpu, median, ms, print, ratio, table, verdict } from '../measure.js';
import { MEMORY_FAMILIES, summedPss } from '../memory-sampler.js';
import type { Output, Phase } from './phase.js';

/** Issue 43's goals: template PDFs at >= 3x Gotenberg's throughput; summed PSS within Gotenberg's + 0.5 GB. */
const TARGETS = { pdfThroughputVsGotenberg: 3, pssOverGotenbergMb: 512 };

interface ReportSettings {
  readonly clients: number;
  readonly seconds: number;
  readonly rounds: number;
  /** Gotenberg's Chromium concurrency. */
  readonly concurrency: number;
}

/** Every phase's figures and memory, then issue 43's ratios (over several rounds, the medians). */
export const report = (phases: readonly Phase[], { clients, seconds, rounds, concurrency }: ReportSettings) => {
  print();
  print(`== ${clients} clients, ${seconds} s per phase, one system at a time (${os.cpus().length} cores)`);
  print('   service: POST /api/v2/render { template, outputFormat, cache: false, data } answered as JSON; CPU of node, its Chromium, Temporal and PostgreSQL');
  print(`   gotenberg: the same document posted as index.html, Chromium concurrency ${concurrency}; CPU of gotenberg and its Chromium`);
  print('   (Gotenberg opens a tab per conversion and restarts its Chromium every 100 conversions unless GOTENBERG_ARGS says otherwise: new processes and browsers seen show both)');
  print(table(
    ['phase', 'n', 'p50 ms', 'p95 ms', 'per s', 'CPU-s/req', 'root', 'chromium', 'temporal', 'postgres', 'other', 'new chromium procs/req', 'browsers seen'],
    phases.map(({ round: r, system, output, stats, cpu: c, newChromium, browsers }) => [
      `${rounds > 1 ? `${r}: ` : ''}${system} ${output}`,
      String(stats.n),
      ms(stats.p50),
      ms(stats.p95),
      stats.perSecond.toFixed(2),
      cpu(c.total),
      cpu(c.root),
      cpu(c.chromium),
      cpu(c.temporal),
      cpu(c.postgres),
      cpu(c.other),
      newChromium.toFixed(2),
      String(browsers),
    ]),
  ));
  for (const system of ['service', 'gotenberg']) {
    print(`   ${system}'s Chromium: ${[...new Set(phases.filter((phase) => phase.system === system).flatMap((phase) => phase.chromiumBinaries))].join(', ') || '-'}`);
  }
  print();
  print('== peak summed PSS under load, MB (root: the node or gotenberg process itself; processes in brackets)');
  print(table(
    ['phase', 'total', ...MEMORY_FAMILIES.map((family) => (family === 'node' ? 'root' : family))],
    phases.map(({ round: r, system, output, peak }) => [
      `${rounds > 1 ? `${r}: ` : ''}${system} ${output}`,
      summedPss(peak).toFixed(0),
      ...MEMORY_FAMILIES.map((family) => `${peak.pssMb[family].toFixed(0)} (${peak.processes[family]})`),
    ]),
  ));

  // Over the rounds, the median of each figure (one round: its own figures).
  const of = (system: string, output: Output) => phases.filter((phase) => phase.system === system && phase.output === output);
  const medianOf = (system: string, output: Output, pick: (phase: Phase) => number) => median(of(system, output).map(pick));
  const peakOf = (system: string) => Math.max(...phases.filter((phase) => phase.system === system).map((phase) => summedPss(phase.peak)));
  const rows: string[][] = [];
  for (const output of ['pdf', 'jpeg'] as const) {
    if (of('service', output).length === 0 || of('gotenberg', output).length === 0) continue;
    const [perSecond, p50, cpuTotal] = [(phase: Phase) => phase.stats.perSecond, (phase: Phase) => phase.stats.p50, (phase: Phase) => phase.cpu.total];
    const throughput = medianOf('service', output, perSecond) / medianOf('gotenberg', output, perSecond);
    const goal = output === 'pdf';
    rows.push([`${output} throughput, service / Gotenberg`, ratio(throughput), goal ? `>= ${TARGETS.pdfThroughputVsGotenberg}x` : '', goal ? verdict(throughput >= TARGETS.pdfThroughputVsGotenberg) : '']);
    if (rounds > 1) {
      const perRound = Array.from({ length: rounds }, (_, index) => {
        const [ours, theirs] = [of('service', output)[index], of('gotenberg', output)[index]];
        return ours && theirs ? ratio(ours.stats.perSecond / theirs.stats.perSecond) : '-';
      });
      rows.push([`  (each round)`, perRound.join(' '), '', '']);
    }
    rows.push([`${output} p50, service / Gotenberg`, ratio(medianOf('service', output, p50) / medianOf('gotenberg', output, p50)), '', '']);
    rows.push([`${output} CPU per request, service / Gotenberg`, ratio(medianOf('service', output, cpuTotal) / medianOf('gotenberg', output, cpuTotal)), '', '']);
  }
  const [ourPeak, theirPeak] = [peakOf('service'), peakOf('gotenberg')];
  rows.push([
    'peak summed PSS under PDF and image load, service - Gotenberg',
    `${ourPeak.toFixed(0)} - ${theirPeak.toFixed(0)} = ${(ourPeak - theirPeak).toFixed(0)} MB`,
    `<= +${TARGETS.pssOverGotenbergMb} MB`,
    verdict(ourPeak - theirPeak <= TARGETS.pssOverGotenbergMb),
  ]);
  print();
  print(`== issue 43 against Gotenberg${rounds > 1 ? ` (medians of ${rounds} rounds; PSS: the highest peak)` : ''}`);
  print(table(['measure', 'measured', 'goal', ''], rows));
};
