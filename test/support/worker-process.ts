import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportsSpans } from '../../infrastructure/tracing/tracing.js';
import { placed, type Placement } from './service-process.js';
import { sleep } from './wait-for.js';
import { workflowBundleFile } from './workflow-bundles.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

/*
 * A render worker (`npm run worker`) as a real process that a test can kill like a lost machine
 * and replace, for the tests of what survives a worker going away.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const nodeBinary = path.join(root, 'node_modules/.bin/node');
const WORKER_START_TIMEOUT_MS = 90_000;

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  output(): string;
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Direct children of a process, from /proc: Chromium (and PostgreSQL's backends) run in process groups of their own. */
export const childPids = (pid: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid ? [Number(entry)] : [];
      } catch {
        // The process ended while the folder was listed.
        return [];
      }
    });

const killGroup = (pgid: number) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/**
 * What a lost machine looks like: the worker's process group and the browsers it launched (puppeteer
 * starts each Chromium as the leader of a group of its own, so the worker's group does not hold it).
 */
export const killWorkerHost = (worker: WorkerProcess) => {
  const pid = worker.child.pid;
  if (pid === undefined || !isRunning(worker.child)) return;
  const browsers = childPids(pid);
  killGroup(pid);
  browsers.forEach(killGroup);
};

const workers = new Set<WorkerProcess>();
// Last resort if the test process itself ends without stopping its workers.
process.on('exit', () => workers.forEach(killWorkerHost));

/** Starts `npm run worker` with `env` over this process's environment; resolves once it polls its task queue. */
export const startWorkerProcess = async (env: Record<string, string>, placement?: Placement): Promise<WorkerProcess> => {
  const child = spawn(...placed(placement, nodeBinary, [...TYPESCRIPT_FLAGS, 'interfaces/cli/worker.ts']), {
    cwd: root,
    // Its own process group, so a kill reaches the worker and whatever it spawned in that group.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Info, for the "polling" line that says the worker is ready.
    env: { ...process.env, LOG_LEVEL: 'info', WORKFLOW_BUNDLE_PATH: workflowBundleFile(exportsSpans({ ...process.env, ...env })), ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const worker: WorkerProcess = { child, exited, output: () => output };
  workers.add(worker);
  void exited.then(() => workers.delete(worker));

  const deadline = Date.now() + WORKER_START_TIMEOUT_MS;
  while (!output.includes('render worker polling')) {
    if (!isRunning(child)) throw new Error(`worker exited during start (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (Date.now() > deadline) {
      killWorkerHost(worker);
      throw new Error(`worker not polling after ${WORKER_START_TIMEOUT_MS} ms:\n${output}`);
    }
    await sleep(100);
  }
  return worker;
};

/** A graceful stop first, as the worker's own shutdown path; the kill is the bound on it. */
export const stopWorkerProcesses = async () => {
  const running = [...workers];
  running.forEach((worker) => worker.child.kill('SIGTERM'));
  await Promise.all(running.map((worker) => Promise.race([worker.exited, sleep(15_000)])));
  running.forEach(killWorkerHost);
  await Promise.all(running.map((worker) => worker.exited));
};
