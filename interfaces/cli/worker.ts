import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime } from '../composition-root.js';

/** A render worker alone: production runs these on many machines beside the API. */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const runtime = await createRuntime(config, logger, { runProjections: false, rendering: 'worker' });
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'render worker polling');

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'worker shutting down: finishing activities in flight');
  await runtime.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
