import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Logger } from 'pino';
import { startTemporalDevServer } from './dev-server.js';

export interface TemporalHandle {
  readonly address: string;
  readonly client: Client;
  /** A cheap round trip to the server (its system info), for readiness; fails after `deadlineMs`. */
  ping(deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}

/** TEMPORAL_ADDRESS when given; otherwise the embedded default, a dev server with its SQLite file under DATA_DIR. */
export const connectTemporal = async (options: { address?: string; namespace: string; dataDir: string; logger: Logger }): Promise<TemporalHandle> => {
  const devServer = options.address ? null : await startTemporalDevServer({ dataDir: options.dataDir, logger: options.logger });
  const address = options.address ?? devServer?.address ?? '';
  try {
    const connection = await Connection.connect({ address });
    /*
     * The client retries an unreachable server in the background; a deadline ends those retries,
     * and closing waits for them, because a retry that fires on a closed connection throws out of a timer.
     */
    const pings = new Set<Promise<unknown>>();
    return {
      address,
      // Starting a workflow is a span of the request that asked for it, and carries its context to the workflow.
      client: new Client({ connection, namespace: options.namespace, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } }),
      async ping(deadlineMs) {
        const call = connection.withDeadline(Date.now() + deadlineMs, () => connection.workflowService.getSystemInfo({}));
        pings.add(call);
        try {
          await call;
        } finally {
          pings.delete(call);
        }
      },
      async close() {
        await Promise.allSettled(pings);
        await connection.close();
        await devServer?.stop();
      },
    };
  } catch (error) {
    await devServer?.stop();
    throw error;
  }
};
