import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TYPESCRIPT_FLAGS } from '../../../infrastructure/system/node-flags.js';

/**
 * A render worker process (`npm run worker` without the setup step), ready once it polls; pinned to
 * one core with taskset when `core` is given (its Chromium and ffmpeg inherit the pin), as a host of
 * one core would run it.
 */
export const startWorkerProcess = async (env: Record<string, string>, core?: number): Promise<ChildProcess> => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const command = [process.execPath, ...TYPESCRIPT_FLAGS, 'interfaces/cli/worker.ts'];
  const [program, ...args] = core === undefined ? command : ['taskset', '-c', String(core), ...command];
  const child = spawn(program ?? process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes('render worker polling')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`a worker process did not start:\n${output}`);
    }
    await sleep(100);
  }
  return child;
};

export const stopWorkerProcess = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The fallback must not keep the bench alive once the worker is gone.
  const fallback = new AbortController();
  await Promise.race([exited, sleep(20_000, undefined, { signal: fallback.signal }).catch(() => undefined)]);
  fallback.abort();
  child.kill('SIGKILL');
};
