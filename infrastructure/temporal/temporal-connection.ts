import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Logger } from 'pino';
import { startTemporalDevServer } from './dev-server.js';
import { connectToWorkers } from './temporal-worker.js';

export interface TemporalHandle {
  readonly address: string;
  readonly client: Client;
  /**
   * The client's connection when this process runs the workers too (see connectTemporal's
   * `workers`): they share it, and the client's starts are eager. Null otherwise.
   */
  readonly workerConnection: NativeConnection | null;
  /** A cheap round trip to the server (its system info), for readiness; fails after `deadlineMs`. */
  ping(deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectTemporalOptions {
  readonly address?: string;
  readonly namespace: string;
  readonly dataDir: string;
  readonly logger: Logger;
  /**
   * Given when this process also runs the workflows' worker: the client then connects through the
   * SDK's core (sharing the worker's runtime and its metrics address) instead of grpc-js, so that a
   * start can hand the workflow's first task to the local worker in its answer. That skips the server's
   * matching of the task to a poller, which spares CPU per render in Temporal and in this process.
   */
  readonly workers?: { readonly metricsBindAddress?: string };
}

/** TEMPORAL_ADDRESS when given; otherwise the embedded default, a dev server with its SQLite file under DATA_DIR. */
export const connectTemporal = async (options: ConnectTemporalOptions): Promise<TemporalHandle> => {
  const devServer = options.address ? null : await startTemporalDevServer({ dataDir: options.dataDir, logger: options.logger });
  const address = options.address ?? devServer?.address ?? '';
  try {
    const workerConnection = options.workers ? await connectToWorkers(address, options.workers) : null;
    const connection: ConnectionLike & Pick<Connection, 'withDeadline' | 'workflowService'> = workerConnection ?? (await Connection.connect({ address }));
    /*
     * The client retries an unreachable server in the background; a deadline ends those retries,
     * and closing waits for them, because a retry that fires on a closed connection throws out of a timer.
     */
    const pings = new Set<Promise<unknown>>();
    return {
      address,
      workerConnection,
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
