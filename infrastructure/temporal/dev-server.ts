import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { freePort } from '../system/free-port.js';
import { requireTemporalBinary } from './temporal-binary.js';

export interface TemporalDevServer {
  /** host:port of the frontend gRPC service. */
  readonly address: string;
  /** False when another process started the server on this data folder; stop() then leaves it running. */
  readonly owned: boolean;
  stop(): Promise<void>;
}

export interface StartTemporalDevServerOptions {
  dataDir: string;
  logger: Logger;
  /** Defaults to the CLI found by findTemporalBinary. */
  binary?: string;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
  /** The address the server listens on (default 127.0.0.1), e.g. a host's own address on a network. */
  ip?: string;
  /** Default: a free port. */
  port?: number;
}

interface AddressFile {
  address: string;
  pid: number;
}

/*
 * The server runs under a small sh watchdog whose stdin is a pipe from this process. The kernel
 * closes that pipe however this process ends (even SIGKILL or a crash, where no 'exit' handler
 * runs), and the watchdog then stops the server, so a dev server never outlives its owner. The
 * watchdog also forwards SIGTERM, letting the server flush its SQLite file on a normal stop.
 */
const WATCHDOG = `
exec 3<&0
"$@" </dev/null &
server=$!
trap 'kill -TERM "$server" 2>/dev/null' TERM INT HUP
( read -r _ <&3; kill -TERM "$server" 2>/dev/null ) &
watcher=$!
exec 3<&-
status=0
wait "$server" || status=$?
while kill -0 "$server" 2>/dev/null; do wait "$server" || status=$?; done
kill "$watcher" 2>/dev/null
exit "$status"
`;

const START_ATTEMPTS = 3;

class ServerExitedError extends Error {}

export async function startTemporalDevServer(options: StartTemporalDevServerOptions): Promise<TemporalDevServer> {
  const { logger } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const dir = join(options.dataDir, 'temporal');
  await mkdir(dir, { recursive: true });

  const release = await acquireStartLock(join(dir, 'start.lock'), startTimeoutMs);
  try {
    const running = await findRunningServer(join(dir, 'address'), logger);
    if (running) {
      logger.info({ address: running.address, serverPid: running.pid }, 'reusing the Temporal dev server already running on this data folder');
      return { address: running.address, owned: false, stop: async () => {} };
    }
    const binary = options.binary ?? requireTemporalBinary();
    let lastError: unknown;
    // The free port is found by binding and releasing it, so another process can take it in
    // between; the server then exits at once and a new port is tried.
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return await launch({ ...options, binary, dir, startTimeoutMs, stopTimeoutMs: options.stopTimeoutMs ?? 10_000 });
      } catch (error) {
        if (!(error instanceof ServerExitedError)) throw error;
        lastError = error;
        logger.warn({ err: error, attempt }, 'Temporal dev server exited while starting');
      }
    }
    throw lastError;
  } finally {
    await release();
  }
}

/*
 * The server keeps every workflow it touched in its history cache for an hour, up to 128,000 of
 * them: under a steady load of renders, each a short workflow, its memory grows for an hour. Renders
 * finish in seconds and a finished workflow is never touched again, so a few thousand entries kept
 * for minutes hold every workflow in flight and bound the server's memory.
 */
const CACHE_BOUNDS = ['history.hostLevelCacheMaxSize=4096', 'history.cacheTTL="5m"'];

/*
 * SQLite's default rollback journal creates, syncs and deletes a journal file for every
 * transaction, and a workflow is several: a write-ahead log appends to one file and syncs it at
 * checkpoints, which spares the server CPU on every render and lets more renders through. A commit
 * survives the server being killed (it is in the log the moment it returns); only a power loss can
 * take back the last moments, and then what the event log holds wins: the pending-request repair
 * starts again a workflow whose start was lost, and a workflow run again charges and records
 * nothing twice.
 */
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/*
 * Go collects garbage when its heap doubles since the last collection (GOGC=100): a server whose
 * live heap is 100 MB may hold 200 MB before it collects, and returns little of it. A soft memory
 * limit makes it collect harder as it nears the limit instead of growing; an operator's own
 * GOMEMLIMIT wins.
 */
const GO_MEMORY_LIMIT = process.env.GOMEMLIMIT ?? '192MiB';

async function launch(options: {
  binary: string;
  dir: string;
  logger: Logger;
  startTimeoutMs: number;
  stopTimeoutMs: number;
  ip?: string;
  port?: number;
}): Promise<TemporalDevServer> {
  const { binary, dir, logger, ip = '127.0.0.1' } = options;
  const port = options.port ?? (await freePort());
  const address = `${ip}:${port}`;
  const logFile = join(dir, 'server.log');
  const args = [
    'server', 'start-dev', '--headless',
    '--db-filename', join(dir, 'temporal.db'),
    '--ip', ip, '--port', String(port),
    '--log-level', 'warn',
    ...CACHE_BOUNDS.flatMap((setting) => ['--dynamic-config-value', setting]),
    ...SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma]),
  ];
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', WATCHDOG, 'temporal-watchdog', binary, ...args], {
      stdio: ['pipe', logFd, logFd],
      env: { ...process.env, GOMEMLIMIT: GO_MEMORY_LIMIT },
      // Its own process group, so a stop that has to escalate can kill the server with the watchdog.
      detached: true,
    });
  } finally {
    closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${binary}`);
  // Neither the server nor the watchdog's pipe may keep this process alive; its owner decides when to stop.
  child.unref();
  (child.stdin as Socket | null)?.unref();

  let exited = false;
  let stopping = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      if (!stopping) logger.error({ code, signal, logFile }, 'Temporal dev server exited');
      resolve();
    });
  });
  const killOnExit = () => {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  process.once('exit', killOnExit);

  const addressFile = join(dir, 'address');
  let stopPromise: Promise<void> | undefined;
  const stop = () => {
    stopPromise ??= (async () => {
      stopping = true;
      process.off('exit', killOnExit);
      await removeAddressFileIfPid(addressFile, pid);
      if (exited) return;
      killOnExit();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        exit.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(resolve, options.stopTimeoutMs, true);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        logger.warn({ serverPid: pid }, 'Temporal dev server ignored SIGTERM; killing it');
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Exited in the meantime.
        }
        await exit;
      }
    })();
    return stopPromise;
  };

  try {
    await waitUntilServing(address, () => exited, Date.now() + options.startTimeoutMs);
  } catch (error) {
    const exitedEarly = exited;
    await stop();
    const tail = await readFile(logFile, 'utf8').then((text) => text.trim().split('\n').slice(-5).join('\n'), () => '');
    const message = `Temporal dev server did not start at ${address}: ${(error as Error).message}${tail ? `\n${tail}` : ''}`;
    throw exitedEarly ? new ServerExitedError(message) : new Error(message);
  }

  const tmp = `${addressFile}.${pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ address, pid } satisfies AddressFile));
  await rename(tmp, addressFile);
  logger.info({ address, serverPid: pid }, 'Temporal dev server started');
  return { address, owned: true, stop };
}

async function waitUntilServing(address: string, hasExited: () => boolean, deadline: number): Promise<void> {
  for (;;) {
    if (hasExited()) throw new Error('the server process exited');
    try {
      await probe(address, 1_000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(200);
  }
}

/** Resolves when the frontend answers and the default namespace exists, which is when workers can poll. */
async function probe(address: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection.workflowService.describeNamespace({ namespace: 'default' }),
    );
  } finally {
    await connection.close();
  }
}

async function findRunningServer(addressFile: string, logger: Logger): Promise<AddressFile | undefined> {
  let recorded: AddressFile;
  try {
    recorded = JSON.parse(await readFile(addressFile, 'utf8')) as AddressFile;
  } catch {
    return undefined;
  }
  if (!isAlive(recorded.pid)) return undefined;
  try {
    await probe(recorded.address, 2_000);
    return recorded;
  } catch (error) {
    logger.warn({ err: error, ...recorded }, 'recorded Temporal dev server is alive but does not answer; starting a new one');
    return undefined;
  }
}

async function removeAddressFileIfPid(addressFile: string, pid: number): Promise<void> {
  try {
    const recorded = JSON.parse(await readFile(addressFile, 'utf8')) as AddressFile;
    if (recorded.pid === pid) await rm(addressFile, { force: true });
  } catch {
    // Nothing recorded, or a file another process is rewriting: not ours to remove.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Serialises starts across processes on one data folder: two processes that both found no server
 * would otherwise start two servers on the same SQLite file.
 */
async function acquireStartLock(lockFile: string, timeoutMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(lockFile, 'utf8').catch(() => ''));
    const age = await stat(lockFile).then((s) => Date.now() - s.mtimeMs, () => 0);
    // An empty file is a holder between creating and writing it, unless it stays empty for long.
    const stale = Number.isInteger(holder) && holder > 0 ? !isAlive(holder) : age > 5_000;
    if (stale) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockFile} held by pid ${holder}`);
    await sleep(200);
  }
}

