import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime } from '../composition-root.js';
import { createHttpApp } from '../rest/app.js';
import { listen } from '../rest/http-server.js';
import { bootstrapApiKey } from './bootstrap.js';
import { exitOnSignals } from './graceful-shutdown.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

const runtime = await createRuntime(config, logger, { runProjections: true, rendering: 'worker' });
const { key, orgId } = await bootstrapApiKey(runtime.services.accounts, config.BOOTSTRAP_API_KEY);
const app = createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT });
const server = await listen(app, config.PORT, config.HOST);

logger.info({ url: server.url, orgId, dataDir: config.DATA_DIR }, 'rendering service listening');
if (key) {
  process.stdout.write(
    [
      '',
      `Rendering service is up at ${server.url}`,
      `Development API key (organization "${orgId}"), shown once:`,
      `  ${key}`,
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
