import { startBenchService } from '../../bench-service.js';
import { print, seconds } from '../measure.js';
import type { VideoBench } from './video-context.js';

interface ServiceStart extends Pick<VideoBench, 'dataDir' | 'logger' | 'stops'> {
  /** When the bench started (performance.now()), for how long the service took to come up. */
  readonly benchStarted: number;
}

/** The service in this process (API, projections, a render worker) behind an HTTP server of the bench's. */
export const startVideoService = async ({ dataDir, logger, stops, benchStarted }: ServiceStart): Promise<VideoBench> => {
  const { config, temporal, apiKey, api } = await startBenchService({ dataDir, logger, stops });
  print(`service up in ${seconds(performance.now() - benchStarted)} s`);
  return { config, temporal, apiKey, api, dataDir, logger, stops };
};
