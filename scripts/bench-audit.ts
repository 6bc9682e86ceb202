/*
 * npm run bench:audit: replay and rebuild speed on a generated log of 1,000,000 events (BENCH_EVENTS
 * to change it), on a fresh embedded PostgreSQL under a temporary folder. The baseline, measured in
 * the same run, is a plain readAll scan of the whole log: every figure is also given as a ratio to
 * it, and the scan and the rebuild with the CPU they took, this process's and PostgreSQL's (read
 * from /proc, scripts/bench/process-cpu.ts), per 10,000 events. A benchmark, not a test: it prints
 * figures and the targets of issue 6 (rebuild at least 20,000 events/s) and issue 23 (rebuild at
 * least half the scan's rate), and fails only when something breaks.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createAuditService } from '../application/audit/audit-service.js';
import { createEventIntegrity } from '../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../infrastructure/audit/ledger-read-model.js';
import { createLogger } from '../infrastructure/config/logger.js';
import { createEventStore } from '../infrastructure/event-store/create-event-store.js';
import { resolveDatabaseUrl } from '../infrastructure/postgres/embedded-postgres.js';
import { createRebuilder } from '../infrastructure/projections/rebuild.js';
import { openReadModels } from '../infrastructure/read-models/orm.js';
import { generateEventLog } from '../test/fixtures/generated-log.js';
import { FamilyCpu } from './bench/process-cpu.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const REBUILD_TARGET = 20_000;
const REBUILD_RATIO_TARGET = 0.5;
const SCAN_PAGE = 5_000;

const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const say = (line: string) => process.stderr.write(`${line}\n`);
const perSecond = (events: number, seconds: number) => Math.round(events / seconds);
const format = (value: number) => value.toLocaleString('en-US');

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; seconds: number }> => {
  const started = performance.now();
  const result = await work();
  return { result, seconds: (performance.now() - started) / 1000 };
};

/** `work` timed, with the CPU seconds this process and PostgreSQL spent meanwhile. */
const withCpu = async <T>(postgres: FamilyCpu, work: () => Promise<T>) => {
  const node = process.cpuUsage();
  const before = postgres.sample(true).postgres;
  const run = await timed(work);
  const { user, system } = process.cpuUsage(node);
  return { ...run, nodeCpu: (user + system) / 1e6, postgresCpu: postgres.sample(true).postgres - before };
};

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-audit-'));
await chmod(dataDir, 0o755);
const database = await resolveDatabaseUrl({ dataDir });
try {
  const eventStore = await createEventStore({ databaseUrl: database.url, logger });
  const orm = await openReadModels(database.url);
  try {
    say(`generating ${format(EVENTS)} events ...`);
    let reported = 0;
    const log = await generateEventLog(database.url, {
      events: EVENTS,
      onProgress: (written) => {
        if (written - reported >= 100_000) {
          reported = written;
          say(`  ${format(written)} written`);
        }
      },
    });
    const events = log.events;
    // A log as a service holds it, vacuumed long ago: otherwise autovacuum works through the fresh
    // log during whichever measure comes first, and the first read of each page sets its hint bits.
    say('vacuum analyze of the log ...');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('vacuum (analyze) events').finally(() => admin.end());

    const postgres = new FamilyCpu({ rootPid: process.pid, dataDir });
    // The machine may be shared: its load says how far the figures can be trusted.
    const loadAtStart = os.loadavg()[0]?.toFixed(1);
    say('baseline: readAll scan of the whole log ...');
    const scan = await withCpu(postgres, async () => {
      let after: number | null = null;
      let count = 0;
      for (;;) {
        const page = await eventStore.readAll({ after, limit: SCAN_PAGE });
        const last = page.at(-1);
        if (!last) return count;
        count += page.length;
        after = last.position;
      }
    });
    const baseline = perSecond(scan.result, scan.seconds);

    const audit = createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(database.url) });
    say('history replay of one organization (two passes over the log) ...');
    const orgId = log.orgIds[0] ?? '';
    const replay = await timed(async () => {
      let rows = 0;
      for await (const _row of audit.replayHistory({ orgId })) rows += 1;
      return rows;
    });

    say('projections rebuild from position 0, swapped in ...');
    const rebuild = await withCpu(postgres, () => createRebuilder({ orm, databaseUrl: database.url, eventStore, logger }).swap());

    say('audit verify: every hash chain and the ledger against the rebuilt read models ...');
    const verify = await timed(() => audit.verify());

    const rebuildRate = perSecond(rebuild.result.events, rebuild.seconds);
    const ratio = rebuildRate / baseline;
    const cpuPer10k = (run: { nodeCpu: number; postgresCpu: number }, count: number) =>
      `${((run.nodeCpu * 10_000) / count).toFixed(2)} s node + ${((run.postgresCpu * 10_000) / count).toFixed(2)} s PostgreSQL`;
    const rows: [string, number, string][] = [
      ['readAll scan (baseline)', baseline, `${format(scan.result)} events`],
      ['history replay, 1 org', perSecond(events, replay.seconds), `${format(replay.result)} rows, 2 passes`],
      ['projections rebuild', rebuildRate, `${rebuild.result.tables.length} tables`],
      ['audit verify', perSecond(verify.result.eventsChecked, verify.seconds), `${verify.result.differences} differences`],
    ];
    const lines = [
      '',
      `bench:audit on ${format(events)} generated events (${os.cpus().length} cores, load average ${loadAtStart} at the scan and ${os.loadavg()[0]?.toFixed(1)} at the end; log written in ${log.seconds.toFixed(1)} s, ${format(perSecond(events, log.seconds))} events/s)`,
      '',
      `${'measure'.padEnd(26)}${'events/s'.padStart(12)}${'vs baseline'.padStart(13)}   notes`,
      ...rows.map(([name, speed, note]) => `${name.padEnd(26)}${format(speed).padStart(12)}${`${(speed / baseline).toFixed(2)}x`.padStart(13)}   ${note}`),
      '',
      `CPU per 10k events: scan ${cpuPer10k(scan, scan.result)}; rebuild ${cpuPer10k(rebuild, rebuild.result.events)}`,
      `rebuild ${format(rebuildRate)} events/s vs scan ${format(baseline)} events/s: ${ratio.toFixed(2)}x, target at least ${REBUILD_RATIO_TARGET}x -> ${ratio >= REBUILD_RATIO_TARGET ? 'met' : 'NOT met'}`,
      `rebuild target: at least ${format(REBUILD_TARGET)} events/s -> ${rebuildRate >= REBUILD_TARGET ? 'met' : 'NOT met'}`,
      `verify: ${verify.result.ok ? 'consistent' : 'DIFFERENCES FOUND'} (${verify.result.chainBreaks} hash chain breaks)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!verify.result.ok) process.exitCode = 1;
  } finally {
    await orm.close();
    await eventStore.close();
  }
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
