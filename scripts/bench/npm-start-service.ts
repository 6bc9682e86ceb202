import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_NODE_FLAGS, TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';
import { CARD_CSS, CARD_HTML, HEIGHT, WIDTH } from './card.js';
import { serviceApi, type ServiceApi } from './service-api.js';

export interface NpmStartService {
  readonly base: string;
  readonly pid: number;
  /** Its API with the bootstrap key. */
  readonly api: ServiceApi;
  stop(): Promise<void>;
}

/**
 * `npm start` without its setup step: the same entry point and V8 flags in a process of its own, on its own data
 * folder (its embedded PostgreSQL and Temporal dev server), so what is measured of it is what an
 * operator runs, not a bench process that also holds clients and samplers. Its output goes to
 * DATA_DIR/service.log. Credits, upload quota and per-key limits are out of a long load's way.
 */
export const startNpmStartService = async ({ dataDir, port, apiKey }: { dataDir: string; port: number; apiKey: string }): Promise<NpmStartService> => {
  const log = createWriteStream(path.join(dataDir, 'service.log'));
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...TYPESCRIPT_FLAGS, 'interfaces/cli/start.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: apiKey,
      DEFAULT_PLAN_CREDITS: '100000000',
      // Every render stores a file: a 1 GiB plan fills during a soak and the rest would be 402s.
      DEFAULT_UPLOADS_BYTES: String(1024 ** 4),
      // Per-key limits counted as deployed, never reached by the bench's clients.
      RATE_LIMIT_DEFAULT: '1000000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      EVENTSTORE_URL: '',
      // As npm start sets it (package.json): glibc's allocator bounded to two arenas.
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}; see ${path.join(dataDir, 'service.log')}`);
    const ready = await fetch(`${base}/readyz`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the service was not ready within 5 minutes');
    await sleep(500);
  }
  return {
    base,
    pid: child.pid as number,
    api: serviceApi(base, apiKey),
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000).then(() => child.kill('SIGKILL'))]);
    },
  };
};

/** The benchmark card as an html-editor template of the service's organization; its id. */
export const createCardTemplate = async ({ api }: NpmStartService, name: string): Promise<string> => {
  const { identifier } = await api.call<{ identifier: string }>('POST', '/api/v2/my-templates', { name, width: WIDTH, height: HEIGHT, editor: 'html-editor', outputFormat: 'jpeg' });
  await api.call('PUT', `/api/v2/my-templates/${identifier}/html-editor`, { html: CARD_HTML, css: CARD_CSS });
  return identifier;
};
