import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../infrastructure/system/free-port.js';
import { sleep } from './wait-for.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const nodeBinary = path.join(root, 'node_modules/.bin/node');
/**
 * A restart after SIGKILL recovers PostgreSQL and the Temporal dev server before it is healthy; on a
 * small machine busy with other test files that took over a minute.
 */
const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Where a process runs when not on this host's loopback: inside a Linux network namespace, listening
 * on that namespace's address (test/faults makes such hosts).
 */
export interface Placement {
  readonly netns: string;
  readonly host: string;
}

/** `command args` as spawn takes them, entered into the placement's namespace when there is one (`ip netns exec` execs, so the pid is the command's). */
export const placed = (placement: Placement | undefined, command: string, args: string[]): [string, string[]] =>
  placement ? ['ip', ['netns', 'exec', placement.netns, command, ...args]] : [command, args];

/** The HTTP service run from one of its entry points as a real child process. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<void>;
  output(): string;
}

const children = new Set<ChildProcess>();

/** Kills the child's whole process group: the service and anything it spawned, as a crash of its host would. */
export const killGroup = (child: ChildProcess) => {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};
// Last resort if the test process itself ends without stopping them.
process.on('exit', () => children.forEach(killGroup));

/**
 * Starts `node interfaces/cli/<entry>.ts` (with TYPESCRIPT_FLAGS) (start: all in one; api: HTTP without
 * Chromium) on a free port with `env` over this process's environment; resolves once /healthz is 200.
 */
export const startServiceProcess = async (entry: 'start' | 'api', env: Record<string, string>, placement?: Placement): Promise<ServiceProcess> => {
  const port = await freePort();
  const host = placement?.host ?? '127.0.0.1';
  const child = spawn(...placed(placement, nodeBinary, [...TYPESCRIPT_FLAGS, `interfaces/cli/${entry}.ts`]), {
    cwd: root,
    // Its own process group, so a kill reaches everything it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), HOST: host, LOG_LEVEL: 'warn', ...env },
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));

  const url = `http://${host}:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`service exited during start (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      killGroup(child);
      throw new Error(`service not healthy after ${STARTUP_TIMEOUT_MS} ms:\n${output}`);
    }
    await sleep(200);
  }
  return { child, url, exited, output: () => output };
};

/** Kills every service process still running and waits for them to exit. */
export const stopServiceProcesses = async () => {
  const running = [...children];
  running.forEach(killGroup);
  await Promise.all(running.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)))));
};
