import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infrastructure/system/free-port.js';
import { callApi } from '../support/http-call.js';
import { killGroup, startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { childPids, killWorkerHost, startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

/*
 * A 1,000-row batch through `npm run api` and `npm run worker` as real processes, on a PostgreSQL and a
 * Temporal dev server of its own (plain processes on 127.0.0.1, each on its own data), while the worker,
 * the API, PostgreSQL and Temporal are killed with SIGKILL in turn and started again (the servers on the
 * same port and data, after a while down): the API and the worker ride out the servers' outages, and the
 * batch still ends with exactly one result per row, each charged once and completed once, one stored
 * file per row, and audit verify finds the log and the read models agree.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const nodeBinary = path.join(root, 'node_modules/.bin/node');
const hostServerScript = fileURLToPath(new URL('./support/host-server.ts', import.meta.url));
const ROWS = 1_000;
/** How long PostgreSQL and Temporal stay down once killed. */
const OUTAGE_MS = 10_000;
/** Where every process's output is left after a run, for whoever reads a failure. */
const LOG_DIR = '/tmp/batch-crash-logs';
const run = promisify(execFile);
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;

/** PostgreSQL or Temporal run by host-server.ts as a plain process on 127.0.0.1. */
interface Server {
  readonly child: ChildProcess;
  /** What it printed when ready: PostgreSQL's URL, Temporal's address and the pid of its dev server's group. */
  details: { url?: string; address?: string; pid?: number };
  output(): string;
}

let dataRoot: string;
let dataDir: string;
let pgPort: number;
let temporalPort: number;
let postgres: Server | undefined;
let temporal: Server | undefined;
let shared: Record<string, string>;
let sql: pg.Pool | undefined;
let api: ServiceProcess;
let worker: WorkerProcess;
/** Every process this test started, by name, for the logs left in LOG_DIR. */
const outputs: [string, () => string][] = [];
const servers: Server[] = [];
const named = (kind: string) => `${kind}-${outputs.filter(([name]) => name.startsWith(`${kind}-`)).length + 1}`;

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Starts host-server.ts's `kind` outside any namespace; resolves once it prints its ready line. */
const startServer = async (kind: 'postgres' | 'temporal', options: Record<string, unknown>): Promise<Server> => {
  const child = spawn(nodeBinary, [...TYPESCRIPT_FLAGS, hostServerScript, kind, JSON.stringify({ host: '127.0.0.1', ...options })], {
    cwd: root,
    // Its own process group: a kill reaches the server it started (PostgreSQL's postmaster and backends).
    detached: true,
    // Its standard input is a pipe: it stops its server when this process ends, however it ends.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const server: Server = { child, details: {}, output: () => output };
  servers.push(server);
  outputs.push([named(kind), server.output]);
  const readyLine = await waitFor(
    `${kind} to serve`,
    () => {
      if (!isRunning(child)) throw new Error(`${kind} exited while starting:\n${output}`);
      return output.split('\n').find((line) => line.startsWith('ready '));
    },
    120_000,
  );
  server.details = JSON.parse(readyLine.slice('ready '.length)) as Server['details'];
  return server;
};

const descendantsOf = (pid: number): number[] => childPids(pid).flatMap((child) => [child, ...descendantsOf(child)]);
/** Alive and not a zombie waiting to be reaped. */
const isAlive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};
const sigkill = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/**
 * SIGKILL to the server and every process under it at once, as a crash of its host would: PostgreSQL's
 * postmaster and each of its children (they lead process groups of their own, so a group kill misses
 * them), Temporal's dev server with its watchdog. Resolves once all of them are gone.
 */
const killServer = async (server: Server) => {
  // Only a live server's: a dead one's pids may name other processes by now.
  if (server.child.pid === undefined || !isRunning(server.child)) return;
  const tree = descendantsOf(server.child.pid);
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  tree.forEach(sigkill);
  if (server.details.pid) sigkill(-server.details.pid);
  killGroup(server.child);
  await exited;
  await waitFor(`the processes of ${server.child.spawnargs[4]} to end`, () => (tree.some(isAlive) ? undefined : true), 15_000);
};

const startPostgres = () => startServer('postgres', { dataDir: path.join(dataRoot, 'pg'), port: pgPort });
const startTemporal = () => startServer('temporal', { dataDir: path.join(dataRoot, 'temporal'), port: temporalPort });

const startApi = async () => {
  const started = await startServiceProcess('api', { ...shared, BOOTSTRAP_API_KEY: apiKey });
  outputs.push([named('api'), started.output]);
  return started;
};
const startWorker = async () => {
  const started = await startWorkerProcess(shared);
  outputs.push([named('worker'), started.output]);
  return started;
};

const call = (method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);

interface BatchView {
  done: number;
  failed: number;
  finishedAt: string | null;
  creditsCharged: number;
}
const batchOf = async (id: string) => (await call('GET', `/api/v2/batches/${id}`)).body as BatchView;
/** The batch through whichever API process is up, or undefined while none answers. */
const probeBatch = async (id: string) => {
  try {
    const response = await fetch(`${api.url}/api/v2/batches/${id}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(10_000) });
    return response.status === 200 ? ((await response.json()) as BatchView) : undefined;
  } catch {
    return undefined;
  }
};

/** Waits until the batch has `done` rows or more (or ended), through whichever API process is up. */
const untilDone = (id: string, done: number, timeoutMs = 300_000) =>
  waitFor(
    `${done} rows of the batch done`,
    async () => {
      const batch = await probeBatch(id);
      return batch && (batch.done >= done || batch.finishedAt) ? batch : undefined;
    },
    timeoutMs,
  );

/** A warning or an error in pino's JSON, the Temporal SDK's lines or its core's. */
const WARNING = /"level":(40|50|60)|\bWARN\b|\bERROR\b|Error:/;
/** Said by every worker at start: it has no video workflows to poll for. */
const BENIGN = /No workflows registered/;
const since = (output: string, from: number) => output.slice(from).replace(/\x1b\[[0-9;]*m/g, '');
const warningsIn = (text: string) => text.split('\n').filter((line) => WARNING.test(line) && !BENIGN.test(line));

interface Observation {
  kill: string;
  doneAtKill: number;
  /** The first count seen past doneAtKill: rows the worker went on with while the API was away show here. */
  doneWhenResumed: number;
  /** From the kill until the batch's done count went past doneAtKill again (the outage and the restart included). */
  stalledSeconds: number;
  restartSeconds: number;
  /** From the restart's end until the batch went on. */
  resumedAfterRestartSeconds: number;
  readyzDuringOutage?: string;
  /** PostgreSQL's kill: the read models' checkpoints and results rows just before it and as the restarted server has them (a commit it lost shows as a step back). */
  checkpoints?: { beforeKill: string; afterRestart: string };
  apiWarnings: number;
  workerWarnings: number;
  firstWarnings: string[];
}
const observations: Observation[] = [];
const seconds = (ms: number) => Math.round(ms / 100) / 10;

beforeAll(async () => {
  dataRoot = await mkdtemp('/tmp/batch-crash-');
  // PostgreSQL runs as user postgres, which must be able to enter its folder.
  await chmod(dataRoot, 0o755);
  dataDir = path.join(dataRoot, 'service');
  await mkdir(dataDir);
  [pgPort, temporalPort] = [await freePort(), await freePort()];
  [postgres, temporal] = await Promise.all([startPostgres(), startTemporal()]);
  const databaseUrl = postgres.details.url ?? '';
  shared = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: temporal.details.address ?? '',
    TEMPORAL_TASK_QUEUE: `batch-crash-${randomBytes(6).toString('hex')}`,
    DEFAULT_PLAN_CREDITS: '5000',
  };
  sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // The test's own pool sees PostgreSQL killed too: an idle client's error must not end the test.
  sql.on('error', () => {});
  api = await startApi();
  worker = await startWorker();
}, 300_000);

afterAll(async () => {
  await rm(LOG_DIR, { recursive: true, force: true });
  await mkdir(LOG_DIR, { recursive: true });
  for (const [name, output] of outputs) await writeFile(path.join(LOG_DIR, `${name}.log`), output());
  if (dataRoot) await copyFile(path.join(dataRoot, 'temporal', 'temporal', 'server.log'), path.join(LOG_DIR, 'temporal-server.log')).catch(() => {});
  await stopWorkerProcesses();
  await stopServiceProcesses();
  await sql?.end().catch(() => {});
  for (const server of servers) await killServer(server);
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
  if (observations.length > 0) console.log(`batch crash observations:\n${observations.map((entry) => JSON.stringify(entry)).join('\n')}`);
}, 120_000);

describe('a batch whose worker, API, PostgreSQL and Temporal are killed in turn', () => {
  it('ends with one result and one stored file per row, each charged once and completed once, and a clean audit', { timeout: 900_000 }, async () => {
    const template = (await call('POST', '/api/v2/my-templates', { name: 'Crash card', width: 120, height: 60, editor: 'html-editor', outputFormat: 'png' })).body.identifier as string;
    expect((await call('PUT', `/api/v2/my-templates/${template}/html-editor`, { html: '<p>{{title}}</p>' })).status).toBe(200);
    const usedBefore = (await call('GET', '/api/v1/usage')).body.credits.used as number;
    const submitted = await call('POST', '/api/v2/batches', { template, name: 'Crash', rows: Array.from({ length: ROWS }, (_, index) => ({ data: { title: `Row ${index + 1}` } })) });
    expect(submitted.status).toBe(202);
    const batchId = submitted.body.identifier as string;

    /**
     * Once `after` rows are done: the kill, then whatever `restart` does (a wait while down, a start on the
     * same port and data), then a wait until the batch goes on. What each process logged meanwhile is kept.
     */
    const killAndRestart = async (after: number, name: string, kill: () => Promise<void>, restart: () => Promise<void>, during?: () => Promise<string>) => {
      const doneAtKill = (await untilDone(batchId, after)).done;
      const marks = { api: api.output().length, worker: worker.output().length };
      const [apiBefore, workerBefore] = [api, worker];
      const killedAt = Date.now();
      await kill();
      const readyzDuringOutage = await during?.();
      const restartFrom = Date.now();
      await restart();
      const restartedAt = Date.now();
      const restartSeconds = seconds(restartedAt - restartFrom);
      const doneWhenResumed = await waitFor(
        `the batch to go on after the ${name} was killed`,
        async () => {
          const done = (await probeBatch(batchId))?.done ?? 0;
          return done > doneAtKill ? done : undefined;
        },
        300_000,
      );
      const stalledSeconds = seconds(Date.now() - killedAt);
      const resumedAfterRestartSeconds = seconds(Date.now() - restartedAt);
      // A few seconds more, for what the processes log once their dependency is back.
      await sleep(3_000);
      const apiLog = since(apiBefore.output(), apiBefore === api ? marks.api : 0) + (apiBefore === api ? '' : since(api.output(), 0));
      const workerLog = since(workerBefore.output(), workerBefore === worker ? marks.worker : 0) + (workerBefore === worker ? '' : since(worker.output(), 0));
      const [apiWarnings, workerWarnings] = [warningsIn(apiLog), warningsIn(workerLog)];
      const entry: Observation = {
        kill: name,
        doneAtKill,
        doneWhenResumed,
        stalledSeconds,
        restartSeconds,
        resumedAfterRestartSeconds,
        readyzDuringOutage,
        apiWarnings: apiWarnings.length,
        workerWarnings: workerWarnings.length,
        firstWarnings: [...apiWarnings.slice(0, 3).map((line) => `api: ${line.slice(0, 300)}`), ...workerWarnings.slice(0, 3).map((line) => `worker: ${line.slice(0, 300)}`)],
      };
      observations.push(entry);
      return entry;
    };

    /** A server's outage: the API and the worker stay up while it is down, and the API's /readyz names what is missing. */
    const outage = (missing: RegExp) => async () => {
      await sleep(OUTAGE_MS / 2);
      const readyz = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(15_000) }).then(
        async (response) => `${response.status} ${(await response.text()).slice(0, 400)}`,
        (error: unknown) => `no answer: ${String(error)}`,
      );
      expect(readyz, 'the API is not ready while a server is down').toMatch(new RegExp(`^503 .*${missing.source}`));
      await sleep(OUTAGE_MS / 2);
      expect(isRunning(api.child), `the API stays up while a server is down:\n${api.output().slice(-3000)}`).toBe(true);
      expect(isRunning(worker.child), `the worker stays up while a server is down:\n${worker.output().slice(-3000)}`).toBe(true);
      return readyz;
    };

    await killAndRestart(
      100,
      'worker',
      async () => {
        killWorkerHost(worker);
        await worker.exited;
        expect(worker.child.signalCode).toBe('SIGKILL');
      },
      async () => {
        worker = await startWorker();
      },
    );

    await killAndRestart(
      250,
      'API',
      async () => {
        killGroup(api.child);
        await api.exited;
        expect(api.child.signalCode).toBe('SIGKILL');
      },
      async () => {
        api = await startApi();
      },
    );

    const checkpoints = async () =>
      (sql as pg.Pool)
        .query<{ name: string; position: string }>(`select name, position from projection_checkpoints union all select 'results rows', count(*) from results order by name`)
        .then((result) => result.rows.map((row) => `${row.name} ${row.position}`).join(', '), (error: unknown) => String(error));
    let beforeKill = '';
    let afterRestart = '';
    const postgresKill = await killAndRestart(
      400,
      'PostgreSQL',
      async () => {
        beforeKill = await checkpoints();
        await killServer(postgres as Server);
        expect(postgres?.child.signalCode).toBe('SIGKILL');
      },
      async () => {
        postgres = await startPostgres();
        afterRestart = await checkpoints();
      },
      outage(/eventStore: /),
    );
    postgresKill.checkpoints = { beforeKill, afterRestart };

    await killAndRestart(
      550,
      'Temporal',
      async () => {
        await killServer(temporal as Server);
        expect(temporal?.child.signalCode).toBe('SIGKILL');
      },
      async () => {
        temporal = await startTemporal();
      },
      outage(/temporal: /),
    );

    // The batch ends once its read models hold every row's outcome. Once the log holds all of them, a
    // minute is plenty; past it, what the read models are missing is the failure.
    const db = sql as pg.Pool;
    let lastSeen: BatchView | undefined;
    let allCompletedAt: number | undefined;
    const ended = await waitFor(
      'the batch to end',
      async () => {
        const batch = await probeBatch(batchId);
        lastSeen = batch ?? lastSeen;
        if (batch?.finishedAt) return batch;
        const completed = await db.query<{ n: string }>(`select count(*) as n from events where type = 'RenderCompleted'`).then((result) => Number(result.rows[0]?.n), () => 0);
        if (completed < ROWS) return undefined;
        allCompletedAt ??= Date.now();
        if (Date.now() - allCompletedAt < 60_000) return undefined;
        // Every event of each such request, to tell which of them the read model missed.
        const unprojected = await db
          .query(
            `select e.data->>'requestId' as request_id, r.status, string_agg(all_events.position || ' ' || all_events.type, ', ' order by all_events.position) as events
             from events e left join results r on r.request_id = e.data->>'requestId'
             join events all_events on all_events.data->>'requestId' = e.data->>'requestId'
             where e.type = 'RenderCompleted' and r.status is distinct from 'done' group by 1, 2`,
          )
          .then((result) => JSON.stringify(result.rows), (error: unknown) => String(error));
        throw new Error(
          `every row's RenderCompleted is in the log, but the batch has not ended a minute later: ${JSON.stringify(lastSeen)}; completions the results read model does not show as done: ${unprojected}; projection checkpoints: ${await checkpoints()}`,
        );
      },
      420_000,
    );
    // Neither survived outage ended the API or the worker afterwards.
    expect(isRunning(api.child), `the API is up at the end:\n${api.output().slice(-3000)}`).toBe(true);
    expect(isRunning(worker.child), `the worker is up at the end:\n${worker.output().slice(-3000)}`).toBe(true);
    expect(ended).toMatchObject({ done: ROWS, failed: 0, creditsCharged: ROWS });
    expect((await batchOf(batchId)).done).toBe(ROWS);
    expect((await call('GET', '/api/v2/results?batch=Crash&size=1')).body.totalElements).toBe(ROWS);
    expect((await call('GET', '/api/v1/usage')).body.credits.used).toBe(usedBefore + ROWS);

    // Each row's request charged once and completed once, in the log itself (over every stream).
    const perRequest = async (type: string) =>
      (await db.query<{ request_id: string; n: string }>(`select data->>'requestId' as request_id, count(*) as n from events where type = $1 group by 1`, [type])).rows;
    const charges = await perRequest('CreditsCharged');
    const completions = await perRequest('RenderCompleted');
    expect(charges.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(completions.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(completions.length).toBe(ROWS);
    expect(charges.length).toBe(ROWS);

    // No file stored twice: one file per row's request under the storage folder, the one its completion
    // names, and besides them only the batch's rows; no write left half done.
    const storageRoot = path.join(dataDir, 'files');
    const stored = (await readdir(storageRoot, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => path.relative(storageRoot, path.join(entry.parentPath, entry.name)));
    const keys = (await db.query<{ key: string }>(`select data->>'storageKey' as key from events where type = 'RenderCompleted'`)).rows.map((row) => row.key);
    expect(new Set(keys).size).toBe(ROWS);
    const resultFiles = stored.filter((file) => !file.includes('/batches/'));
    expect(stored.filter((file) => file.includes('/batches/'))).toEqual([expect.stringMatching(new RegExp(`/batches/${batchId}/rows\\.jsonl$`))]);
    // A write the kill interrupted is left in the storage's incoming folder until its process's successor sweeps it.
    expect(resultFiles.filter((file) => !keys.includes(file))).toEqual([]);
    expect(resultFiles.length).toBe(ROWS);
    expect(new Set(resultFiles.map((file) => path.dirname(file))).size).toBe(ROWS);
    expect([...resultFiles].sort()).toEqual([...keys].sort());

    const { stdout } = await run(nodeBinary, [...TYPESCRIPT_FLAGS, 'interfaces/cli/main.ts', 'audit', 'verify'], { cwd: root, env: { ...process.env, ...shared, LOG_LEVEL: 'warn' }, maxBuffer: 1 << 24 });
    expect(stdout).toMatch(/0 hash chain breaks, 0 ledger differences/);
  });
});
