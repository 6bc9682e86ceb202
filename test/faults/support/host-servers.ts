import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killGroup, placed } from '../../support/service-process.js';
import { waitFor } from '../../support/wait-for.js';
import type { NetworkHost } from './network.js';
import { TYPESCRIPT_FLAGS } from '../../../infrastructure/system/node-flags.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const nodeBinary = path.join(root, 'node_modules/.bin/node');
const script = fileURLToPath(new URL('./host-server.ts', import.meta.url));

export type HostServerKind = 'postgres' | 'temporal' | 'minio' | 'receiver' | 'link';

/** A server that host-server.ts runs inside a host's namespace. */
export interface HostServer<Details> {
  readonly child: ChildProcess;
  /** What it printed when ready: its URL or address, and for Temporal the pid of its server's group. */
  readonly details: Details;
  /** One command line on its standard input (link: `delay <ms>`). */
  send(line: string): void;
  output(): string;
}

/** Starts a server of `kind` on `host` and resolves once it serves; its output is kept for the test's failure messages. */
export const startHostServer = async <Details>(kind: HostServerKind, host: NetworkHost, options: Record<string, unknown>): Promise<HostServer<Details>> => {
  const child = spawn(...placed(host, nodeBinary, [...TYPESCRIPT_FLAGS, script, kind, JSON.stringify({ host: host.host, ...options })]), {
    cwd: root,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const readyLine = await waitFor(
    `${kind} on ${host.netns} to serve`,
    () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${kind} on ${host.netns} exited while starting:\n${output}`);
      return output.split('\n').find((line) => line.startsWith('ready '));
    },
    120_000,
  );
  return {
    child,
    details: JSON.parse(readyLine.slice('ready '.length)) as Details,
    send: (line) => void child.stdin?.write(`${line}\n`),
    output: () => output,
  };
};

/** Ends a host server and everything in its process group, as a crash of its host would. */
export const killHostServer = async (server: HostServer<unknown>) => {
  const exited = server.child.exitCode !== null || server.child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => server.child.once('exit', resolve));
  killGroup(server.child);
  await exited;
};
