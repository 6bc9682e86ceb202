import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { stringify } from 'csv-stringify';
import type { ReplayProgress } from '../../application/audit/audit-service.js';
import type { HistoryRow } from '../../application/audit/history.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRebuilder, type RebuildReport } from '../../infrastructure/projections/rebuild.js';
import { createRuntime, type Runtime } from '../composition-root.js';

const parseTime = (value: string): Date => {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidArgumentError('must be an ISO 8601 date or timestamp, e.g. 2026-03-01 or 2026-03-01T12:00:00Z');
  return new Date(time);
};

/**
 * Audit commands read the event log, not the read models, so they do not follow the log into the
 * read models first (which could take long on a big log); the others do.
 */
const withRuntime = <Options>(runProjections: boolean, action: (runtime: Runtime, options: Options) => Promise<void>) =>
  async (options: Options) => {
    const runtime = await createRuntime(loadConfig(), createLogger(process.env.LOG_LEVEL ?? 'warn'), { runProjections, rendering: 'off' });
    try {
      await action(runtime, options);
    } finally {
      await runtime.close();
    }
  };

/** A progress bar on stderr, shown on a terminal or when forced, so stdout stays pure data. */
const progressBar = (forced: boolean): { update: ReplayProgress; stop(): void } => {
  if (!forced && !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'replaying |{bar}| {percentage}% | {eta_formatted} left', etaBuffer: 50, noTTYOutput: forced, notTTYSchedule: 1000 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(Math.max(total, 1), 0);
      started = true;
      bar.setTotal(Math.max(total, 1));
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
};

const CSV_COLUMNS = [
  'requestId',
  'kind',
  'requestedAt',
  'actor',
  'templateId',
  'templateRevision',
  'templateVersion',
  'templateName',
  'url',
  'format',
  'data',
  'status',
  'completedAt',
  'failureReason',
  'cached',
  'bytes',
  'creditsCharged',
  'creditsRefunded',
  'webhookAttempts',
  'webhookOutcome',
  'deletedAt',
  'states',
  'webhooks',
  'correlationId',
  'batchId',
  'batchName',
  'batchRow',
] as const;

/** One flat record per row; lists and objects become JSON cells. */
const csvRecord = (row: HistoryRow): Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null> => ({
  requestId: row.requestId,
  kind: row.kind,
  requestedAt: row.requestedAt,
  actor: row.actor,
  templateId: row.template?.id ?? null,
  templateRevision: row.template?.revision ?? null,
  templateVersion: row.template?.version ?? null,
  templateName: row.template?.name ?? null,
  url: row.url,
  format: row.format,
  data: row.data === null ? null : JSON.stringify(row.data),
  status: row.status,
  completedAt: row.states.findLast((change) => change.state === 'completed' || change.state === 'failed')?.at ?? null,
  failureReason: row.failureReason,
  cached: row.file?.cached ?? null,
  bytes: row.file?.bytes ?? null,
  creditsCharged: row.credits.charged,
  creditsRefunded: row.credits.refunded,
  webhookAttempts: row.webhooks.length,
  webhookOutcome: row.webhooks.at(-1)?.outcome ?? null,
  deletedAt: row.deletedAt,
  states: JSON.stringify(row.states),
  webhooks: JSON.stringify(row.webhooks),
  correlationId: row.correlationId,
  batchId: row.batch?.id ?? null,
  batchName: row.batch?.name ?? null,
  batchRow: row.batch?.row ?? null,
});

async function* ndjson(rows: AsyncIterable<HistoryRow>): AsyncGenerator<string> {
  for await (const row of rows) yield `${JSON.stringify(row)}\n`;
}

async function* records(rows: AsyncIterable<HistoryRow>): AsyncGenerator<ReturnType<typeof csvRecord>> {
  for await (const row of rows) yield csvRecord(row);
}

/** Streams to stdout with backpressure, leaving stdout open (it belongs to the process). */
const writeHistory = async (rows: AsyncIterable<HistoryRow>, format: 'json' | 'csv') => {
  if (format === 'json') {
    await pipeline(Readable.from(ndjson(rows)), process.stdout, { end: false });
  } else {
    await pipeline(Readable.from(records(rows)), stringify({ header: true, columns: [...CSV_COLUMNS] }), process.stdout, { end: false });
  }
};

const rebuildCommand = (program: Command) =>
  program
    .command('projections')
    .description('Read models')
    .command('rebuild')
    .description('Rebuild every read model from position 0 into fresh tables and swap them in while the service runs')
    .option('--verify', 'compare the rebuilt tables with the live ones instead of swapping; exits 1 on any difference', false)
    .option('--progress', 'show the progress bar on stderr even when it is not a terminal', false)
    .action(
      // Its own live projections run too, so the live tables reach the log's head even when no service runs.
      withRuntime(true, async (runtime, options: { verify: boolean; progress: boolean }) => {
        const bar = progressBar(options.progress);
        const rebuilder = createRebuilder({
          orm: runtime.orm,
          databaseUrl: runtime.orm.config.get('clientUrl') ?? '',
          eventStore: runtime.eventStore,
          logger: runtime.logger,
          onProgress: bar.update,
        });
        const summary = (report: RebuildReport, verb: string) =>
          `${verb} ${report.tables.length} tables from ${report.events} events up to position ${report.position} ` +
          `in ${report.seconds.toFixed(1)} s (${Math.round(report.events / Math.max(report.seconds, 0.001))} events/s)\n`;
        try {
          if (!options.verify) {
            const report = await rebuilder.swap();
            bar.stop();
            process.stdout.write(summary(report, 'Rebuilt and swapped in'));
            return;
          }
          const report = await rebuilder.verify();
          bar.stop();
          process.stdout.write(summary(report, 'Rebuilt and compared'));
          for (const { table, onlyLive, onlyRebuilt, samples } of report.differences) {
            process.stdout.write(`DIFFERENCE ${table}: ${onlyLive} rows only in the live table, ${onlyRebuilt} only in the rebuilt one\n`);
            for (const { side, row } of samples) process.stdout.write(`  ${side}: ${JSON.stringify(row)}\n`);
          }
          process.stdout.write(report.differences.length === 0 ? 'OK: the live read models equal a rebuild\n' : 'FAILED\n');
          if (report.differences.length > 0) process.exitCode = 1;
        } finally {
          bar.stop();
        }
      }),
    );

export const registerAuditCommands = (program: Command): void => {
  rebuildCommand(program);

  const audit = program.command('audit').description('Replay and check the event log');

  audit
    .command('history')
    .description('The organization\'s render history replayed from the event log: one row per render or capture')
    .requiredOption('--org <orgId>', 'organization id')
    .option('--from <time>', 'requests made at or after this time', parseTime)
    .option('--to <time>', 'requests made at or before this time', parseTime)
    .option('--template <templateId>', 'renders of this template only')
    .option('--batch <batchId>', 'the rows of this batch only')
    .addOption(new Option('--format <format>', 'json (one object per line) or csv').choices(['json', 'csv']).default('json'))
    .option('--progress', 'show the progress bar on stderr even when it is not a terminal', false)
    .action(
      withRuntime(false, async (runtime, options: { org: string; from?: Date; to?: Date; template?: string; batch?: string; format: 'json' | 'csv'; progress: boolean }) => {
        const bar = progressBar(options.progress);
        try {
          const rows = runtime.services.audit.replayHistory({ orgId: options.org, from: options.from, to: options.to, templateId: options.template, batchId: options.batch }, bar.update);
          await writeHistory(rows, options.format);
        } finally {
          bar.stop();
        }
      }),
    );

  audit
    .command('uploads')
    .description("The organization's uploaded fonts and images replayed from its account stream: who uploaded and deleted each, and when (one JSON object per line)")
    .requiredOption('--org <orgId>', 'organization id')
    .action(
      withRuntime(false, async (runtime, options: { org: string }) => {
        for (const row of await runtime.services.audit.uploads(options.org)) process.stdout.write(`${JSON.stringify(row)}\n`);
      }),
    );

  audit
    .command('verify')
    .description('Recompute credits, balances, upload bytes and results from the events and check every hash chain; exits 1 on any difference')
    .option('--org <orgId>', 'one organization only')
    .option('--progress', 'show the progress bar on stderr even when it is not a terminal', false)
    .action(
      withRuntime(false, async (runtime, options: { org?: string; progress: boolean }) => {
        const bar = progressBar(options.progress);
        const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
        let report;
        try {
          report = await runtime.services.audit.verify({
            orgId: options.org,
            progress: bar.update,
            onDifference: ({ subject, field, expected, actual }) => {
              process.stdout.write(`DIFFERENCE ${subject} ${field}: events say ${show(expected)}, found ${show(actual)}\n`);
            },
          });
        } finally {
          bar.stop();
        }
        const { head, readModelPositions, eventsChecked, unchainedEvents, chainBreaks, differences, ok } = report;
        process.stdout.write(
          `${ok ? 'OK' : 'FAILED'}: ${eventsChecked} events checked up to position ${head ?? 'none'} ` +
            `(read models at accounts ${readModelPositions.accounts}, results ${readModelPositions.results}); ` +
            `${chainBreaks} hash chain breaks, ${differences - chainBreaks} ledger differences` +
            `${unchainedEvents > 0 ? `; ${unchainedEvents} events predate hash chains` : ''}\n`,
        );
        if (!ok) process.exitCode = 1;
      }),
    );

  audit
    .command('template')
    .description('A template exactly as it was at a moment: settings, content, properties')
    .requiredOption('--id <templateId>', 'template id')
    .requiredOption('--at <time>', 'the moment, e.g. 2026-03-01T12:00:00Z', parseTime)
    .action(
      withRuntime(false, async (runtime, options: { id: string; at: Date }) => {
        process.stdout.write(`${JSON.stringify(await runtime.services.audit.templateSnapshot(options.id, options.at), null, 2)}\n`);
      }),
    );

  audit
    .command('batch')
    .description("A batch's history from its own stream: what it was asked with, rows refused, its cancellation and the counts it ended with")
    .requiredOption('--id <batchId>', 'batch id')
    .action(
      withRuntime(false, async (runtime, options: { id: string }) => {
        process.stdout.write(`${JSON.stringify(await runtime.services.audit.batch(options.id), null, 2)}\n`);
      }),
    );
};
