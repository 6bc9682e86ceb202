import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../infrastructure/system/free-port.js';

export interface S3TestServer {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** MINIO_BINARY, then PATH, then where setup.sh's `go install` puts it. */
export const findMinioBinary = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  if (env.MINIO_BINARY) return isExecutable(env.MINIO_BINARY) ? env.MINIO_BINARY : undefined;
  const dirs = [...(env.PATH ?? '').split(delimiter), ...(env.GOPATH ?? '').split(delimiter).map((dir) => join(dir, 'bin')), join(homedir(), 'go', 'bin')];
  return dirs.filter((dir) => dir !== '' && dir !== 'bin').map((dir) => join(dir, 'minio')).find(isExecutable);
};

/*
 * MinIO runs under a small sh watchdog reading a pipe from this process: the kernel closes the pipe
 * however the test run ends (even SIGKILL), and the watchdog then stops MinIO, so no server outlives
 * its run. (Background jobs of a non-interactive sh read /dev/null, hence the copy of stdin on fd 3.)
 */
const WATCHDOG = `
exec 3<&0
"$@" </dev/null &
server=$!
trap 'kill -TERM "$server" 2>/dev/null' TERM
( while read -r _ <&3; do :; done; kill -TERM "$server" 2>/dev/null ) &
exec 3<&-
while kill -0 "$server" 2>/dev/null; do wait "$server"; done
`;

const CREDENTIALS = { accessKeyId: 'render-service-test', secretAccessKey: 'render-service-test-secret' };

/**
 * A MinIO server on a free port over `dataDir`, for one test run. The port is found by binding and
 * releasing it, so another process may take it first: the server then exits and another port is tried.
 */
export const startMinio = async ({ binary, dataDir, host = '127.0.0.1' }: { binary: string; dataDir: string; host?: string }): Promise<S3TestServer & { stop(): Promise<void> }> => {
  await mkdir(dataDir, { recursive: true });
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [port, consolePort] = [await freePort(), await freePort()];
    const logFd = openSync(join(dataDir, '..', 'minio.log'), 'a');
    const child = spawn('/bin/sh', ['-c', WATCHDOG, 'minio-watchdog', binary, 'server', dataDir, '--address', `${host}:${port}`, '--console-address', `${host}:${consolePort}`, '--quiet'], {
      stdio: ['pipe', logFd, logFd],
      env: { ...process.env, MINIO_ROOT_USER: CREDENTIALS.accessKeyId, MINIO_ROOT_PASSWORD: CREDENTIALS.secretAccessKey, MINIO_BROWSER: 'off' },
    });
    closeSync(logFd);
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        // The watchdog's pipe would otherwise keep this process alive after the run.
        child.stdin?.destroy();
        resolve();
      }),
    );
    let running = true;
    void exited.then(() => (running = false));
    const endpoint = `http://${host}:${port}`;
    const stop = async () => {
      if (!running) return;
      child.kill('SIGTERM');
      const escalate = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(escalate);
    };
    const deadline = Date.now() + 60_000;
    while (running && Date.now() < deadline) {
      const ready = await fetch(`${endpoint}/minio/health/ready`).then((response) => response.ok, () => false);
      if (ready) return { endpoint, region: 'us-east-1', ...CREDENTIALS, stop };
      await sleep(100);
    }
    await stop();
    lastError = new Error(`MinIO ${running ? 'did not become ready' : 'exited while starting'} on port ${port}; see minio.log beside ${dataDir}`);
  }
  throw lastError;
};
