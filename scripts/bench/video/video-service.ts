import { createHttpApp } from '../../../interfaces/rest/app.js';
import { listen } from '../../../interfaces/rest/http-server.js';
import { startBenchService } from '../../bench-service.js';
import { print, seconds } from '../measure.js';
import { restApi } from './rest-render.js';
import type { VideoBench } from './video-context.js';

interface ServiceStart extends Pick<VideoBench, 'dataDir' | 'logger' | 'stops'> {
  /** When the bench started (performance.now()), for how long the service took to come up. */
  readonly benchStarted: number;
}

/** The service in this process (API, projections, a render worker) behind an HTTP server of the bench's. */
export const startVideoService = async ({ dataDir, logger, stops, benchStarted }: ServiceStart): Promise<VideoBench> => {
  const { config, runtime, temporal, apiKey } = await startBenchService({ dataDir, logger, stops });
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), 0, '127.0.0.1');
  stops.push(() => server.close(1000));
  print(`service up in ${seconds(performance.now() - benchStarted)} s`);
  return { config, temporal, apiKey, api: restApi(server.url, apiKey), dataDir, logger, stops };
};
