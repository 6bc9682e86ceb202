import type { Logger } from 'pino';

export interface GracefulShutdownOptions {
  readonly logger: Logger;
  /** The whole shutdown ends within this, cleanly or not. */
  readonly timeoutMs: number;
  /** Stops the process's parts in order; may take longer than the budget, which is why there is one. */
  readonly stop: () => Promise<void>;
}

/**
 * On SIGTERM or SIGINT, stops the process cleanly when it can and exits when the budget is spent
 * whatever is still running: an orchestrator waiting for the process must not wait forever, and
 * nothing is lost by exiting (renders in flight are retried elsewhere by Temporal; children such as
 * Chromium, the Temporal dev server and PostgreSQL stop with the process).
 */
export const exitOnSignals = ({ logger, timeoutMs, stop }: GracefulShutdownOptions): void => {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutMs }, 'shutting down');
    const hardExit = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown did not finish in time; exiting now');
      process.exit(1);
    }, timeoutMs);
    try {
      await stop();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    } finally {
      clearTimeout(hardExit);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
};
