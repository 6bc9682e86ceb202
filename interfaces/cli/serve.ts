import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime, type RuntimeOptions } from '../composition-root.js';
import { createHttpApp } from '../rest/app.js';
import { listen } from '../rest/http-server.js';
import { bootstrapApiKey } from './bootstrap.js';
import { exitOnSignals } from './graceful-shutdown.js';

/** Built by setup.sh (npm run studio:build) from studio/. */
const STUDIO_DIR = fileURLToPath(new URL('../../studio/dist', import.meta.url));

/**
 * The HTTP API with its projections, configured by the environment. `rendering: 'worker'` renders
 * in this process too (npm start, all in one); 'client' leaves renders to worker processes
 * elsewhere (npm run api, beside npm run worker).
 */
export const serve = async ({ rendering }: Pick<RuntimeOptions, 'rendering'>): Promise<void> => {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);

  const runtime = await createRuntime(config, logger, { runProjections: true, rendering });
  const { key, orgId } = await bootstrapApiKey(runtime.services.accounts, config.BOOTSTRAP_API_KEY);
  const app = createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT, studioDir: STUDIO_DIR, trustProxyHops: config.TRUST_PROXY_HOPS });
  const server = await listen(app, config.PORT, config.HOST);

  logger.info({ url: server.url, orgId, dataDir: config.DATA_DIR, rendering }, 'rendering service listening');
  if (key) {
    process.stdout.write(
      [
        '',
        `Rendering service is up at ${server.url}`,
        `Development API key (organization "${orgId}"), shown once:`,
        `  ${key}`,
        `Template studio: ${server.url}/studio (paste the key there)`,
        'Try:',
        `  curl -s -H 'x-api-key: ${key}' ${server.url}/api/v2/my-templates`,
        '',
      ].join('\n'),
    );
  }

  exitOnSignals({
    logger,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    stop: async () => {
      // Requests in flight get a share of the budget; the runtime's parts bound their own shares.
      await server.close(Math.floor(config.SHUTDOWN_TIMEOUT_MS / 4));
      await runtime.close();
    },
  });
};
