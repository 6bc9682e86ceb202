import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPAIR_REASONS } from '../../application/renders/pending-repair.js';
import { callApi } from '../support/http-call.js';
import type { S3TestServer } from '../support/minio-server.js';
import { startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { expectedSignature, signaturesOf } from '../support/standard-webhooks.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { startWorkerProcess, stopWorkerProcesses, type WorkerProcess } from '../support/worker-process.js';
import { killHostServer, startHostServer, type HostServer } from './support/host-servers.js';
import { createNetwork, dropBetween, healDrops, isolate, NETWORK_CIDR, reconnect, removeNetwork, type HostName, type NetworkHost } from './support/network.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

/*
 * The scaled topology on hosts of its own (network namespaces on one bridge): PostgreSQL, Temporal,
 * MinIO, one API, two workers and a client's webhook receiver, each at its own address. Under a steady
 * mixed load, faults are cut into the network one after another, healed in between; after each, what
 * an auditor checks through the public API and the CLI must hold.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
/** Every process's sealing key, the CLI's too: it opens the webhook secret. */
const secretsKey = `k1:${randomBytes(32).toString('base64')}`;
const PG_PORT = 5432;
const LINK_PORT = 6432;
const TEMPORAL_PORT = 7233;
/** A client gives up on an answer after this long: past it the service hung. */
const CLIENT_TIMEOUT_MS = 45_000;

let hosts: Record<HostName, NetworkHost>;
let dataRoot: string;
let databaseUrl: string;
let temporal: HostServer<{ address: string; pid: number }>;
let link: HostServer<{ address: string }>;
let receiverUrl: string;
let api: ServiceProcess;
let workers: WorkerProcess[];
let orgId: string;
let webhookSecret: string;
let htmlTemplate: string;
let videoTemplate: string;
const servers: HostServer<unknown>[] = [];

type Kind = 'jpeg' | 'png' | 'pdf' | 'capture' | 'webhook' | 'mp4';
/** Every answer the load got: its phase, what it asked for, the status (0: no answer in time) and the request it names. */
interface Answer {
  readonly phase: string;
  readonly kind: Kind;
  readonly status: number;
  readonly requestId?: string;
  readonly href?: string;
  readonly retryAfter?: string | null;
  readonly error?: string;
}
const answers: Answer[] = [];
let phase = 'warm-up';

const call = (method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);

const cli = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(path.join(root, 'node_modules/.bin/node'), [...TYPESCRIPT_FLAGS, 'interfaces/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, EVENTSTORE_URL: '', SECRETS_ENCRYPTION_KEY: secretsKey, DATA_DIR: path.join(dataRoot, 'cli'), LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
};

const KINDS: Kind[] = ['jpeg', 'webhook', 'png', 'capture', 'pdf', 'webhook', 'jpeg', 'mp4', 'png', 'webhook'];

const requestOf = (kind: Kind): [string, unknown] => {
  switch (kind) {
    case 'capture':
      return ['/api/v1/screenshots', { url: `${receiverUrl}/page`, width: 320, height: 200 }];
    case 'mp4':
      return ['/api/v2/render', { template: videoTemplate, cache: false }];
    case 'webhook':
      return ['/api/v2/render', { template: htmlTemplate, outputFormat: 'png', cache: false, webhookUrl: `${receiverUrl}/hook/${randomUUID()}` }];
    default:
      return ['/api/v2/render', { template: htmlTemplate, outputFormat: kind, cache: false, data: { n: randomUUID() } }];
  }
};

const send = async (kind: Kind): Promise<Answer> => {
  const [pathname, body] = requestOf(kind);
  const at = phase;
  try {
    const response = await fetch(`${api.url}${pathname}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await response.text();
    const parsed = (() => {
      try {
        return JSON.parse(text) as { requestId?: string; href?: string };
      } catch {
        return {};
      }
    })();
    return { phase: at, kind, status: response.status, requestId: parsed.requestId, href: parsed.href, retryAfter: response.headers.get('retry-after'), error: response.ok ? undefined : text.slice(0, 300) };
  } catch (error) {
    return { phase: at, kind, status: 0, error: String(error) };
  }
};

/** Two clients, each sending the mix one request after another, until stopped. */
const startLoad = () => {
  let running = true;
  let next = 0;
  const client = async () => {
    while (running) {
      answers.push(await send(KINDS[next++ % KINDS.length] as Kind));
      await sleep(250);
    }
  };
  const clients = [client(), client()];
  return async () => {
    running = false;
    await Promise.all(clients);
  };
};

interface AuditRow {
  requestId: string;
  kind: string;
  status: 'pending' | 'done' | 'failed';
  request: { webhookUrl?: string };
  failureReason: string | null;
  credits: { charged: number; refunded: number; movements: { kind: 'charged' | 'refunded'; amount: number }[] };
}

const auditHistory = async (): Promise<AuditRow[]> =>
  (await cli('audit', 'history', '--org', orgId, '--format', 'json'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRow);

const onApi = (href: string) => href.replace(/^https?:\/\/[^/]+/, api.url);

interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: string;
}

interface Figures {
  fault: string;
  acknowledged: number;
  completed: number;
  failedAndRefunded: number;
  answers5xx: Record<string, number>;
  noAnswer: number;
}
const figures: Figures[] = [];

/**
 * What must hold once a fault is healed and the load has stopped: nothing pending, every
 * acknowledged request done with its file readable (or failed and refunded), credits equal to the
 * files produced, a clean audit, webhooks delivered once under one id, 5xx answers only 503s.
 */
const checkAfter = async (fault: string) => {
  const rows = await waitFor(
    'every request in the log to be done or failed',
    async () => {
      const history = await auditHistory();
      return history.some((row) => row.status === 'pending') ? undefined : history;
    },
    180_000,
  );
  const byId = new Map(rows.map((row) => [row.requestId, row]));
  const mine = answers.filter((answer) => answer.phase === fault);
  const acknowledged = mine.filter((answer) => answer.status >= 200 && answer.status < 300);
  expect(acknowledged.length, `${fault}: requests acknowledged`).toBeGreaterThan(0);

  for (const answer of acknowledged) {
    const row = byId.get(answer.requestId ?? '');
    expect(row, `${answer.kind} ${answer.requestId} in the audit history`).toBeDefined();
    if (row?.status === 'done') {
      const result = await call('GET', `/api/v2/results/${row.requestId}`);
      expect(result.body.status).toBe('done');
      const file = await fetch(onApi(String(result.body.href)));
      expect(file.status, `${answer.kind} ${row.requestId}'s file`).toBe(200);
      expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  }

  // The ledger, as the audit sees it: one charge per request at most; a file is paid, a failure refunded.
  let charged = 0;
  for (const row of rows) {
    const charges = row.credits.movements.filter((movement) => movement.kind === 'charged');
    expect(charges.length, `charges of ${row.requestId}`).toBeLessThanOrEqual(1);
    if (row.status === 'done') {
      expect(row.credits.charged, `${row.requestId} done and charged`).toBeGreaterThan(0);
      expect(row.credits.refunded, `${row.requestId} done, not refunded`).toBe(0);
      charged += row.credits.charged;
    } else {
      expect(row.credits.refunded, `${row.requestId} failed (${row.failureReason}) and refunded`).toBe(row.credits.charged);
    }
  }
  const usage = await call('GET', '/api/v1/usage');
  expect(usage.body.credits.used, 'credits used equal the files produced').toBe(charged);

  const verify = await cli('audit', 'verify');
  expect(verify, 'audit verify').toMatch(/^OK: /m);
  expect(verify).not.toMatch(/DIFFERENCE/);

  // Webhooks: each request with a URL was delivered, under one id, with a signature the client can verify.
  // Except a request whose workflow never started (its append committed, its start did not): its client
  // was answered 503 at once, told it will be marked failed, and the repair fails it without a webhook.
  const neverStarted = rows.filter((row) => row.failureReason === REPAIR_REASONS['never-started']);
  for (const row of neverStarted) {
    expect(answers.some((answer) => answer.requestId === row.requestId && answer.status < 300), `${row.requestId} never started, not acknowledged`).toBe(false);
  }
  const withHooks = rows.filter((row) => row.request.webhookUrl && !neverStarted.includes(row));
  const deliveries = await waitFor(
    'every webhook delivered',
    async () => {
      const received = (await (await fetch(`${receiverUrl}/deliveries`)).json()) as Delivery[];
      const views = await Promise.all(withHooks.map(async (row) => (await call('GET', `/api/v2/results/${row.requestId}`)).body));
      return views.every((view) => view.webhook?.status === 'delivered') ? received : undefined;
    },
    120_000,
  );
  const idsOf = new Map<string, Set<string>>();
  for (const delivery of deliveries) {
    // Signed with the organization's secret, and fresh when it arrived (the library allows 5 minutes;
    // checked against arrival, since this check runs minutes after the first deliveries).
    expect(signaturesOf(delivery), `signature of ${delivery.url}`).toContain(expectedSignature(webhookSecret, delivery));
    expect(Math.abs(Date.parse(delivery.receivedAt) - Number(delivery.headers['webhook-timestamp']) * 1000)).toBeLessThan(5 * 60_000);
    const payload = JSON.parse(delivery.body) as { requestId: string };
    const ids = idsOf.get(payload.requestId) ?? new Set<string>();
    ids.add(delivery.headers['webhook-id'] ?? '');
    idsOf.set(payload.requestId, ids);
  }
  for (const row of withHooks) expect([...(idsOf.get(row.requestId) ?? [])], `webhook ids of ${row.requestId}`).toHaveLength(1);
  const allIds = [...idsOf.values()].flatMap((ids) => [...ids]);
  expect(new Set(allIds).size, 'no webhook id shared by two requests').toBe(allIds.length);

  const answers5xx: Record<string, number> = {};
  for (const answer of mine.filter((each) => each.status >= 500)) {
    answers5xx[answer.status] = (answers5xx[answer.status] ?? 0) + 1;
    expect(answer.status, `${fault}: ${answer.kind} answered ${answer.status}: ${answer.error}`).toBe(503);
    expect(answer.retryAfter, `${fault}: 503 with Retry-After`).toMatch(/^\d+$/);
  }
  // A fault is nothing the client did wrong: no 4xx either.
  expect(mine.filter((answer) => answer.status >= 400 && answer.status < 500).map((answer) => `${answer.kind} ${answer.status}: ${answer.error}`), `${fault}: 4xx answers`).toEqual([]);
  const noAnswer = mine.filter((answer) => answer.status === 0);
  expect(noAnswer.map((answer) => `${answer.kind}: ${answer.error}`), `${fault}: requests left without an answer`).toEqual([]);

  const ackRows = acknowledged.map((answer) => byId.get(answer.requestId ?? ''));
  const done = ackRows.filter((row) => row?.status === 'done').length;
  const failed = ackRows.filter((row) => row?.status === 'failed');
  const entry = { fault, acknowledged: acknowledged.length, completed: done, failedAndRefunded: failed.length, answers5xx, noAnswer: noAnswer.length };
  figures.push(entry);
  console.log(`fault figures: ${JSON.stringify(entry)}${failed.length ? ` failures: ${failed.map((row) => row?.failureReason).join('; ')}` : ''}`);
};

/** A warning or an error in pino's JSON, the Temporal SDK's lines or its core's. */
const WARNING = /"level":(40|50|60)|\bWARN\b|\bERROR\b/;
/** A line that reports something failed (not, say, a workflow task slowed by a busy CPU). */
const FAILURE = /"level":(50|60)|\bERROR\b|Activity failed|Network error|Error while/;

/** Output a process wrote since `from` (an offset into its output), without the colours of Temporal's core. */
const since = (output: () => string, from: number) => output().slice(from).replace(/\x1b\[[0-9;]*m/g, '');

interface Fault {
  readonly name: string;
  /** Waits for the moment the fault is meant to hit. */
  readonly when?: () => Promise<unknown>;
  readonly inject: () => Promise<void> | void;
  readonly holdMs: number;
  readonly heal: () => Promise<void> | void;
  /**
   * What names the fault in a process's log. `required`: the fault cannot pass without it (a probe or a
   * request fails); otherwise the process may have had nothing fail (work held up resumes when the
   * network does), but whatever failure it logged must name the fault.
   */
  readonly logged: () => { who: string; output: () => string; pattern: RegExp; required: boolean }[];
  /** What the API's /readyz names while the fault lasts, where it checks the broken dependency. */
  readonly notReady?: RegExp;
}

/** How many steps of renders a worker has under way now, as Temporal sees them (its identity is pid@host). */
const stepsUnderWayOn = async (worker: WorkerProcess): Promise<number> => {
  const connection = await Connection.connect({ address: temporal.details.address });
  try {
    const client = new Client({ connection });
    let steps = 0;
    for await (const execution of client.workflow.list({ query: 'ExecutionStatus="Running"' })) {
      const { raw } = await client.workflow.getHandle(execution.workflowId, execution.runId).describe();
      steps += (raw.pendingActivities ?? []).filter((activity) => activity.lastWorkerIdentity?.startsWith(`${worker.child.pid}@`)).length;
    }
    return steps;
  } finally {
    await connection.close();
  }
};

/** The API's readiness as an operator's probe sees it. */
const readiness = async () => {
  const response = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: await response.text() };
};

beforeAll(async () => {
  hosts = createNetwork();
  dataRoot = await mkdtemp('/tmp/faults-');
  // PostgreSQL runs as user postgres, which must be able to enter its folder.
  await chmod(dataRoot, 0o755);
  const [pg, temporalServer, minio, receiver] = await Promise.all([
    startHostServer<{ url: string }>('postgres', hosts.pg, { dataDir: path.join(dataRoot, 'pg'), port: PG_PORT, allowedClients: NETWORK_CIDR }),
    startHostServer<{ address: string; pid: number }>('temporal', hosts.temporal, { dataDir: path.join(dataRoot, 'temporal'), port: TEMPORAL_PORT }),
    startHostServer<S3TestServer>('minio', hosts.minio, { dataDir: path.join(dataRoot, 'minio') }),
    startHostServer<{ url: string }>('receiver', hosts.hook, { port: 8080 }),
  ]);
  link = await startHostServer('link', hosts.pg, { port: LINK_PORT, target: { host: hosts.pg.host, port: PG_PORT } });
  servers.push(pg, temporalServer, minio, receiver, link);
  temporal = temporalServer;
  databaseUrl = pg.details.url;
  receiverUrl = receiver.details.url;

  const s3 = minio.details;
  const bucket = `faults-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();

  const shared = {
    STORAGE: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    DATABASE_URL: databaseUrl,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: temporal.details.address,
    TEMPORAL_TASK_QUEUE: 'faults',
    URL_SIGNING_SECRET: randomBytes(24).toString('hex'),
    SECRETS_ENCRYPTION_KEY: secretsKey,
    // Every host here has a private address: the receiver and the captured page are on one.
    ALLOWED_PRIVATE_HOSTS: NETWORK_CIDR,
    RATE_LIMIT_DEFAULT: '0',
    // The load runs for a time, not a count: a faster machine makes more requests, and the default
    // plan's 1,000 credits ran out during the last fault once (402s, counted as the fault's 4xx).
    DEFAULT_PLAN_CREDITS: '1000000',
    WEBHOOK_RETRY_INITIAL_MS: '1000',
    WEBHOOK_RETRY_MAX_INTERVAL_MS: '4000',
    WEBHOOK_TIMEOUT_MS: '5000',
    PENDING_REPAIR_INTERVAL_MS: '5000',
    PENDING_REPAIR_AFTER_MS: '30000',
  };
  api = await startServiceProcess('api', { ...shared, DATA_DIR: path.join(dataRoot, 'api'), BOOTSTRAP_API_KEY: apiKey, LOG_LEVEL: 'info' }, hosts.api);
  const workerEnv = {
    ...shared,
    PUBLIC_BASE_URL: api.url,
    // Workers reach PostgreSQL through the link on its host, whose latency a fault sets.
    DATABASE_URL: databaseUrl.replace(`:${PG_PORT}/`, `:${LINK_PORT}/`),
    PAGES_PER_BROWSER: '2',
  };
  workers = await Promise.all(
    (['w1', 'w2'] as const).map((name) => startWorkerProcess({ ...workerEnv, DATA_DIR: path.join(dataRoot, name) }, hosts[name])),
  );

  orgId = (JSON.parse(await cli('org', 'list')) as { orgId: string }[])[0]?.orgId ?? '';
  webhookSecret = (JSON.parse(await cli('webhook-secret', 'show', '--org', orgId)) as { secret: string }).secret;
  const html = await call('POST', '/api/v2/my-templates', { name: 'Faults', width: 320, height: 160, editor: 'html-editor' });
  await call('PUT', `/api/v2/my-templates/${html.body.identifier}/html-editor`, { html: '<div style="background:#0a5;color:#fff;font:24px sans-serif">fault {{n}}</div>' });
  htmlTemplate = html.body.identifier;
  const video = await call('POST', '/api/v2/my-templates', { name: 'Clip', width: 160, height: 90, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 1000, fps: 24 });
  videoTemplate = video.body.identifier;
}, 300_000);

/** Where every process's output is left after a run, for whoever reads a failure. */
const LOG_DIR = '/tmp/faults-logs';

afterAll(async () => {
  await rm(LOG_DIR, { recursive: true, force: true });
  await mkdir(LOG_DIR, { recursive: true });
  const outputs: [string, (() => string) | undefined][] = [
    ['api', api?.output],
    ...(workers ?? []).map((worker, index): [string, () => string] => [`w${index + 1}`, worker.output]),
    ...servers.map((server, index): [string, () => string] => [`host-server-${index}`, server.output]),
  ];
  for (const [name, output] of outputs) if (output) await writeFile(path.join(LOG_DIR, `${name}.log`), output());
  await stopWorkerProcesses();
  await stopServiceProcesses();
  for (const server of servers.reverse()) await killHostServer(server);
  removeNetwork();
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
  if (figures.length > 0) console.log(`fault test figures:\n${figures.map((entry) => JSON.stringify(entry)).join('\n')}`);
}, 120_000);

describe('faults across hosts, one after another under a steady mixed load', () => {
  it('keeps every acknowledged render, charges each file once, delivers each webhook under one id, and answers only 503s', async () => {
    const [w1, w2] = workers as [WorkerProcess, WorkerProcess];
    const faults: Fault[] = [
      {
        name: 'worker partitioned from everything for 30 s',
        // In the middle of renders: once it has steps of them under way.
        when: () => waitFor('renders under way on w1', async () => ((await stepsUnderWayOn(w1)) > 0 ? true : undefined), 60_000),
        inject: () => isolate(hosts.w1),
        holdMs: 30_000,
        heal: () => reconnect(hosts.w1),
        // Its renders' steps that reached for PostgreSQL failed there, were logged and retried.
        // What it was doing when cut off failed there and was logged: a step reaching for PostgreSQL, or
        // Temporal's core completing a task.
        logged: () => [{ who: 'w1', output: w1.output, pattern: /Activity failed[\s\S]*?(EHOSTUNREACH|Query read timeout|timeout exceeded when trying to connect|ETIMEDOUT)|WARN temporalio_sdk_core.*(Timeout expired|transport)/, required: false }],
      },
      {
        name: 'API partitioned from PostgreSQL for 10 s',
        inject: () => {
          dropBetween(hosts.api, hosts.pg, { drop: 'all' });
          dropBetween(hosts.pg, hosts.api, { drop: 'all' });
        },
        holdMs: 10_000,
        heal: () => {
          healDrops(hosts.api);
          healDrops(hosts.pg);
        },
        logged: () => [{ who: 'api', output: api.output, pattern: /(eventStore|readModels): [^\n]*"msg":"not ready"|Connection terminated due to connection timeout|Connection terminated unexpectedly|Query read timeout|timeout exceeded when trying to connect/, required: true }],
        notReady: /eventStore|readModels/,
      },
      {
        name: 'MinIO unreachable for 10 s',
        inject: () => isolate(hosts.minio),
        holdMs: 10_000,
        heal: () => reconnect(hosts.minio),
        logged: () => (['w1', 'w2'] as const).map((who, index) => ({ who, output: (workers[index] as WorkerProcess).output, pattern: /Activity failed[\s\S]*?(S3|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|socket hang up|TimeoutError)|10\.213\.0\.4/, required: false })),
      },
      {
        name: 'Temporal server killed and restarted',
        inject: async () => {
          // SIGKILL to the server's process group, then to the host process that ran it.
          process.kill(-temporal.details.pid, 'SIGKILL');
          await killHostServer(temporal);
        },
        holdMs: 8_000,
        heal: async () => {
          temporal = await startHostServer('temporal', hosts.temporal, { dataDir: path.join(dataRoot, 'temporal'), port: TEMPORAL_PORT });
          servers.push(temporal);
        },
        logged: () => [
          { who: 'api', output: api.output, pattern: /temporal: [^\n]*"msg":"not ready"/, required: true },
          ...(['w1', 'w2'] as const).map((who, index) => ({ who, output: (workers[index] as WorkerProcess).output, pattern: /Unavailable.*tcp connect error.*:7233/, required: false })),
        ],
        notReady: /temporal/,
      },
      {
        name: '200 ms latency and 5% loss between workers and PostgreSQL for 30 s',
        inject: () => {
          link.send('delay 100');
          for (const worker of [hosts.w1, hosts.w2]) dropBetween(worker, hosts.pg, { lossPercent: 5 });
        },
        holdMs: 30_000,
        heal: () => {
          link.send('delay 0');
          for (const worker of [hosts.w1, hosts.w2]) healDrops(worker);
        },
        logged: () => (['w1', 'w2'] as const).map((who, index) => ({ who, output: (workers[index] as WorkerProcess).output, pattern: /Activity failed[\s\S]*?(Query read timeout|timeout exceeded when trying to connect|Connection terminated|ECONNRESET)/, required: false })),
      },
    ];

    const everyLog = (): Record<string, () => string> => ({ api: api.output, w1: w1.output, w2: w2.output });
    let stopLoad = startLoad();
    await sleep(10_000);
    await stopLoad();
    await checkAfter('warm-up');
    for (const fault of faults) {
      phase = fault.name;
      const logMarks = Object.fromEntries(Object.entries(everyLog()).map(([who, output]) => [who, output().length]));
      const marks = fault.logged().map(({ output }) => output().length);
      stopLoad = startLoad();
      await sleep(5_000);
      await fault.when?.();
      await fault.inject();
      const brokenUntil = Date.now() + fault.holdMs;
      if (fault.notReady) {
        await sleep(3_000);
        const ready = await readiness();
        expect(ready.status, `/readyz during "${fault.name}": ${ready.body}`).toBe(503);
        expect(ready.body).toMatch(fault.notReady);
      }
      await sleep(brokenUntil - Date.now());
      await fault.heal();
      if (fault.notReady) await waitFor('/readyz after the heal', async () => ((await readiness()).status === 200 ? true : undefined), 60_000);
      await sleep(5_000);
      await stopLoad();
      await checkAfter(fault.name);
      // Looked at once the work the fault held up has ended, and with it whatever failed.
      for (const [who, output] of Object.entries(everyLog())) {
        const lines = since(output, logMarks[who] ?? 0).split('\n').filter((line) => WARNING.test(line));
        console.log(`${fault.name}: ${who} logged ${lines.length} warnings and errors:\n${lines.slice(0, 4).map((line) => line.slice(0, 400)).join('\n')}`);
      }
      // No silent 5xx: every one the API answered is in its log with its cause.
      const failedRequests = since(api.output, logMarks.api ?? 0).split('\n').filter((line) => line.includes('"msg":"request failed"')).length;
      expect(failedRequests, 'API log lines of failed requests').toBeGreaterThanOrEqual(answers.filter((answer) => answer.phase === fault.name && answer.status >= 500).length);
      fault.logged().forEach(({ who, output, pattern, required }, index) => {
        const logged = since(output, marks[index] ?? 0);
        if (required || FAILURE.test(logged)) expect(logged, `${who} logged "${fault.name}"`).toMatch(pattern);
      });
    }
  }, 900_000);
});
