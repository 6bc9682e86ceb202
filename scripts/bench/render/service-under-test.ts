import express from 'express';
import type { Logger } from 'pino';
import { createHttpApp } from '../../../interfaces/rest/app.js';
import { listen } from '../../../interfaces/rest/http-server.js';
import { startBenchService } from '../../bench-service.js';
import { CARD_CSS, CARD_HTML, HEIGHT, SAMPLE_DATA, WIDTH } from '../card.js';
import { indicesFrom, REQUEST_TIMEOUT_MS, type ApiCall, type RenderBench } from './bench-context.js';
import { createReportTemplate } from './report-pdf.js';
import { measureWith } from './scenario.js';
import { probeService } from './service-probes.js';
import { print } from '../measure.js';

interface ServiceStart extends Pick<RenderBench, 'stops' | 'sampler' | 'load'> {
  readonly dataDir: string;
  readonly logger: Logger;
  /** When the bench started (performance.now()), for how long the service took to come up. */
  readonly benchStarted: number;
}

/** The service in this process with its probes, behind an HTTP server of the bench's, with the card and report templates created. */
export const startRenderService = async ({ dataDir, logger, stops, sampler, load, benchStarted }: ServiceStart): Promise<RenderBench> => {
  const { config, runtime, temporal, apiKey } = await startBenchService({ dataDir, logger, stops });
  await sampler.call({ kind: 'configure', rootPid: process.pid, dataDir });
  const probes = probeService(runtime);
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const counted = express().use(probes.countRequestRoundTrips);
  const server = await listen(counted.use(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT })), 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  print(`service up in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s (pool: ${config.BROWSERS} browser(s) x ${config.PAGES_PER_BROWSER} pages)`);

  const call: ApiCall = async (method, pathname, body) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${method} ${pathname} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };

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
    serverUrl: server.url,
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
      load.call({ baseUrl: server.url, apiKey, templateId, path, output, concurrency, ...limits, firstIndex: takeIndices(limits.maxCount), timeoutMs: REQUEST_TIMEOUT_MS }),
  };
};
