/**
 * bench:protocol: what the synchronous render's protocol costs without the render, in its shapes:
 *
 * - eager + local: the workflow starts eagerly (its first task comes back with the start, to this
 *   process's worker); charge, produce and record run as local activities; the record step tells the
 *   caller waiting in this process (what the service does).
 * - eager + result: the same start, the caller waiting for the workflow's result through Temporal.
 * - update-with-start: Temporal's "early return" pattern: the caller starts the workflow with an
 *   update whose handler answers once the file is recorded (no eager start: Temporal offers none for it).
 *
 * Produce waits PRODUCE_MS without CPU, standing in for the browser. Prints p50 at one client and, at
 * eight, requests per second and CPU per request of this process (client and worker) and the Temporal
 * dev server, all in the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createLogger } from '../infrastructure/config/logger.js';
import { connectTemporal } from '../infrastructure/temporal/temporal-connection.js';
import { ms, runConcurrent, statsOf, table } from './bench/measure.js';
import { FamilyCpu } from './bench/process-cpu.js';
import type { ProtocolActivities } from './bench/protocol.workflows.js';
import { eagerStartWorkflow, outcomeUpdate, updateWithStartWorkflow } from './bench/protocol.workflows.js';

const PRODUCE_MS = Number(process.env.PRODUCE_MS ?? 20);
const C1_REQUESTS = Number(process.env.C1_REQUESTS ?? 150);
const C8_REQUESTS = Number(process.env.C8_REQUESTS ?? 600);
const TASK_QUEUE = 'bench-protocol';

const say = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (delayMs: number) => new Promise((resolve) => setTimeout(resolve, delayMs));

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-protocol-'));
const logger = createLogger('warn');
const temporal = await connectTemporal({ namespace: 'default', dataDir, logger, workers: {} });
const listeners = new Map<string, (file: string) => void>();
const activities: ProtocolActivities = {
  async charge() {},
  async produce(requestId) {
    await sleep(PRODUCE_MS);
    return `${requestId}.jpeg`;
  },
  async record(requestId, file, tellLocally) {
    if (tellLocally) listeners.get(requestId)?.(file);
  },
};
const worker = await Worker.create({
  connection: temporal.workerConnection!,
  taskQueue: TASK_QUEUE,
  workflowsPath: fileURLToPath(new URL('./bench/protocol.workflows.ts', import.meta.url)),
  activities,
  maxConcurrentLocalActivityExecutions: 64,
});
const running = worker.run();
const { client } = temporal;
const cpu = new FamilyCpu({ rootPid: process.pid, dataDir });

let sequence = 0;
const shapes: Record<string, () => Promise<string>> = {
  'eager + local': async () => {
    const requestId = `local-${sequence++}`;
    const heard = new Promise<string>((resolve) => listeners.set(requestId, resolve));
    try {
      await client.workflow.start(eagerStartWorkflow, { workflowId: requestId, taskQueue: TASK_QUEUE, args: [requestId, true], requestEagerStart: true });
      return await heard;
    } finally {
      listeners.delete(requestId);
    }
  },
  'eager + result': async () => {
    const requestId = `result-${sequence++}`;
    const handle = await client.workflow.start(eagerStartWorkflow, { workflowId: requestId, taskQueue: TASK_QUEUE, args: [requestId, false], requestEagerStart: true });
    return handle.result();
  },
  'update-with-start': async () => {
    const requestId = `update-${sequence++}`;
    const start = new WithStartWorkflowOperation(updateWithStartWorkflow, { workflowId: requestId, taskQueue: TASK_QUEUE, args: [requestId], workflowIdConflictPolicy: 'FAIL' });
    return client.workflow.executeUpdateWithStart(outcomeUpdate, { startWorkflowOperation: start });
  },
};

/** `requests` calls of `shape` on `concurrency` lanes: their stats, and the CPU of this process and of Temporal per request. */
const runAt = async (shape: () => Promise<string>, concurrency: number, requests: number) => {
  const node = process.cpuUsage();
  const before = cpu.sample(true);
  const run = await runConcurrent({ concurrency, maxCount: requests, maxMs: Number.POSITIVE_INFINITY }, async () => {
    const begun = performance.now();
    await shape();
    return performance.now() - begun;
  });
  const { user, system } = process.cpuUsage(node);
  const after = cpu.sample(true);
  return { ...statsOf(run), nodeCpu: (user + system) / 1e6 / requests, temporalCpu: (after.temporal - before.temporal) / requests };
};

say(`bench:protocol: 2 cores, produce ${PRODUCE_MS} ms without CPU, ${C1_REQUESTS} requests at c1, ${C8_REQUESTS} at c8`);
const rows: string[][] = [];
for (const round of [1, 2]) {
  for (const [name, shape] of Object.entries(shapes)) {
    for (let i = 0; i < 20; i++) await shape();
    const c1 = await runAt(shape, 1, C1_REQUESTS);
    const c8 = await runAt(shape, 8, C8_REQUESTS);
    rows.push([`${name} (run ${round})`, ms(c1.p50), ms(c1.p50 - PRODUCE_MS), c8.perSecond.toFixed(0), (c8.nodeCpu * 1000).toFixed(2), (c8.temporalCpu * 1000).toFixed(2), ((c8.nodeCpu + c8.temporalCpu) * 1000).toFixed(2)]);
    say(`  ${rows.at(-1)!.join('  ')}`);
  }
}
say();
say(table(['shape', 'c1 p50 ms', 'c1 p50 - produce', 'c8 per s', 'c8 node CPU-ms/req', 'c8 temporal CPU-ms/req', 'c8 total CPU-ms/req'], rows));

worker.shutdown();
await running;
await temporal.close();
await rm(dataDir, { recursive: true, force: true });
