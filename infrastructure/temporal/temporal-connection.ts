import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { startTemporalDevServer } from './dev-server.js';

export interface TemporalHandle {
  readonly address: string;
  readonly client: Client;
  /** A cheap round trip to the server (its system info), for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** TEMPORAL_ADDRESS when given; otherwise the embedded default, a dev server with its SQLite file under DATA_DIR. */
export const connectTemporal = async (options: { address?: string; namespace: string; dataDir: string; logger: Logger }): Promise<TemporalHandle> => {
  const devServer = options.address ? null : await startTemporalDevServer({ dataDir: options.dataDir, logger: options.logger });
  const address = options.address ?? devServer?.address ?? '';
  try {
    const connection = await Connection.connect({ address });
    return {
      address,
      client: new Client({ connection, namespace: options.namespace }),
      async ping() {
        await connection.workflowService.getSystemInfo({});
      },
      async close() {
        await connection.close();
        await devServer?.stop();
      },
    };
  } catch (error) {
    await devServer?.stop();
    throw error;
  }
};
