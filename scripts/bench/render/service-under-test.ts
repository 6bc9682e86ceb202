import type { Logger } from 'pino';
import { startBenchService } from '../../bench-service.js';
import { CARD_CSS, CARD_HTML, HEIGHT, SAMPLE_DATA, WIDTH } from '../card.js';
import { print } from '../measure.js';
import { indicesFrom, REQUEST_TIMEOUT_MS, type RenderBench } from './bench-context.js';
import { createReportTemplate } from './report-pdf.js';
import { measureWith } from './scenario.js';
import { countRequestRoundTrips, probeService } from './service-probes.js';

interface ServiceStart extends Pick<RenderBench, 'stops' | 'sampler' | 'load'> {
  readonly dataDir: string;
  readonly logger: Logger;
  /** When the bench started (performance.now()), for how long the service took to come up. */
  readonly benchStarted: number;
}

/** The service in this process with its probes, behind an HTTP server of the bench's, with the card and report templates created. */
export const startRenderService = async ({ dataDir, logger, stops, sampler, load, benchStarted }: ServiceStart): Promise<RenderBench> => {
  const { config, runtime, temporal, apiKey, api } = await startBenchService({ dataDir, logger, stops, front: countRequestRoundTrips, timeoutMs: REQUEST_TIMEOUT_MS });
  await sampler.call({ kind: 'configure', rootPid: process.pid, dataDir });
  const probes = probeService(runtime);
  print(`service up in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s (pool: ${config.BROWSERS} browser(s) x ${config.PAGES_PER_BROWSER} pages)`);
  const { call, baseUrl: serverUrl } = api;

  const created = await call('POST', '/api/v2/my-templates', { name: 'Bench card', width: WIDTH, height: HEIGHT, editor: 'html-editor' });
  const templateId = String(created.identifier);
  await call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { html: CARD_HTML, css: CARD_CSS, sampleData: SAMPLE_DATA });
  const template = await call('GET', `/api/v2/my-templates/${templateId}`);
  const reportId = await createReportTemplate(call);

  const takeIndices = indicesFrom(0);
  return {
    config,
    temporal,
    apiKey,
    serverUrl,
    stops,
    sampler,
    load,
    probes,
    call,
    measured: measureWith(sampler),
    card: { templateId, quality: Number(template.quality), scaleFactor: Number(template.scaleFactor) },
    reportId,
    takeIndices,
    loadRun: (path, output, concurrency, limits) =>
      load.call({ baseUrl: serverUrl, apiKey, templateId, path, output, concurrency, ...limits, firstIndex: takeIndices(limits.maxCount), timeoutMs: REQUEST_TIMEOUT_MS }),
  };
};
