import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../infrastructure/system/free-port.js';
import { dataFor } from './card.js';
import { sampleMemory, watchPeakMemory, type MemorySample } from './memory-sampler.js';
import { createCardTemplate, startNpmStartService } from './npm-start-service.js';

export interface NpmStartMemory {
  /** After a warm-up of image renders, with nothing asked of it for a few seconds. */
  readonly idle: MemorySample;
  /** The largest summed PSS sampled while 8 clients render images. */
  readonly peak: MemorySample;
  readonly rendersUnderLoad: number;
}

const WARM_UP_RENDERS = 12;
const LOAD_CLIENTS = 8;
const LOAD_MS = 12_000;
const SETTLE_MS = 3_000;
const SAMPLE_EVERY_MS = 250;

/**
 * Issue 24's memory figures, of the service as `npm start` runs it (a process of its own with its
 * Chromium, PostgreSQL and Temporal; not the bench process, whose client and sampler threads would
 * count as the service's): summed PSS idle after a warm-up, and its peak under 8 clients of image
 * renders (cache misses).
 */
export const measureNpmStartMemory = async (): Promise<NpmStartMemory> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-bench-memory-'));
  // The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  const service = await startNpmStartService({ dataDir, port: await freePort(), apiKey: `rk_bench_${randomBytes(16).toString('hex')}` });
  try {
    const template = await createCardTemplate(service, 'Memory card');
    let next = 0;
    const render = async () => {
      const answer = await service.api.send('POST', '/api/v2/render?output=image', { template, data: dataFor(next++), outputFormat: 'jpeg' });
      if (answer.status !== 200) throw new Error(`render answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    };
    for (let i = 0; i < WARM_UP_RENDERS / 4; i++) await Promise.all([render(), render(), render(), render()]);
    await sleep(SETTLE_MS);
    const idle = sampleMemory(service.pid, 0);

    let renders = 0;
    const until = Date.now() + LOAD_MS;
    const stopWatching = watchPeakMemory(service.pid, SAMPLE_EVERY_MS, idle);
    let peak = idle;
    try {
      await Promise.all(
        Array.from({ length: LOAD_CLIENTS }, async () => {
          while (Date.now() < until) {
            await render();
            renders += 1;
          }
        }),
      );
    } finally {
      peak = stopWatching();
    }
    return { idle, peak, rendersUnderLoad: renders };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
