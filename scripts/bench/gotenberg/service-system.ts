import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../infrastructure/system/free-port.js';
import { dataFor } from '../card.js';
import { print } from '../measure.js';
import { createCardTemplate, startNpmStartService } from '../npm-start-service.js';
import { checkQuiet, type MeasurePhase, type Phase, type System } from './phase.js';

/** The service as npm start runs it, its card template, and both phases; stopped before Gotenberg starts. */
export const benchService = async (measure: MeasurePhase, round: number): Promise<{ phases: Phase[]; quality: number; scaleFactor: number }> => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-bench-gotenberg-'));
  // The embedded PostgreSQL may run as user postgres, which must be able to enter this folder.
  await chmod(dataDir, 0o755);
  await checkQuiet('before the service');
  const service = await startNpmStartService({ dataDir, port: await freePort(), apiKey: `rk_bench_${randomBytes(16).toString('hex')}` });
  try {
    const template = await createCardTemplate(service, 'Gotenberg comparison card');
    // Gotenberg's JPEGs are asked at the quality and scale the template renders at (its defaults: created without either).
    const settings = await service.api.call<{ quality: number; scaleFactor: number }>('GET', `/api/v2/my-templates/${template}`);
    const system: System = {
      name: 'service',
      pid: service.pid,
      dataDir,
      async send(output, index) {
        const answer = await service.api.send('POST', '/api/v2/render', { template, outputFormat: output, cache: false, data: dataFor(index) });
        if (answer.status !== 200) throw new Error(`the service's ${output} render answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      },
    };
    print(`service up: npm start's process (pid ${service.pid}), template ${template}`);
    return { phases: [await measure(system, 'pdf', round), await measure(system, 'jpeg', round)], quality: settings.quality, scaleFactor: settings.scaleFactor };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
