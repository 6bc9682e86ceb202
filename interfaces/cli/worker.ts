import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime } from '../composition-root.js';
import { listen } from '../rest/http-server.js';
import { createOperationsApp } from '../rest/operations-router.js';
import { exitOnSignals } from './graceful-shutdown.js';

/** A render worker alone: production runs these on many machines beside the API. */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const runtime = await createRuntime(config, logger, { runProjections: false, rendering: 'worker' });
// Renders, the pool and webhooks are counted where they run: Prometheus scrapes each worker too.
const server = config.WORKER_HTTP_PORT === undefined ? null : await listen(createOperationsApp(runtime.services.operations), config.WORKER_HTTP_PORT, config.HOST);
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, operationsUrl: server?.url }, 'render worker polling');

exitOnSignals({
  logger,
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stop: async () => {
    await server?.close(1000);
    await runtime.close();
  },
});
