import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createRuntime } from '../composition-root.js';
import { exitOnSignals } from './graceful-shutdown.js';

/** A render worker alone: production runs these on many machines beside the API. */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const runtime = await createRuntime(config, logger, { runProjections: false, rendering: 'worker' });
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'render worker polling');

exitOnSignals({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, stop: () => runtime.close() });
