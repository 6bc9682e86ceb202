import { parentPort, Worker } from 'node:worker_threads';

/*
 * The bench's own work (the HTTP load and the /proc sampler) runs in worker threads: it then
 * neither shares the service's event loop nor hides in its CPU time, since each thread reports
 * what it used (process.threadCpuUsage) and the service's share is the process's minus theirs.
 */

interface Envelope {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

export interface BenchThread<Request, Reply> {
  call(request: Request): Promise<Reply>;
  stop(): Promise<void>;
}

export const startThread = <Request, Reply>(url: URL): BenchThread<Request, Reply> => {
  const worker = new Worker(url);
  const pending = new Map<number, { resolve: (value: Reply) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('message', ({ id, result, error }: Envelope) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (error !== undefined) waiter?.reject(new Error(error));
    else waiter?.resolve(result as Reply);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`bench thread ${url.pathname} exited (${code})`)));
  return {
    call: (request) =>
      new Promise<Reply>((resolve, reject) => {
        if (failure) return reject(failure);
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, request });
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
};

/** Worker side: answers each request with handle's result, one envelope per request id. */
export const serveThread = <Request, Reply>(handle: (request: Request) => Promise<Reply> | Reply) => {
  const port = parentPort;
  if (!port) throw new Error('a bench thread runs in a worker');
  port.on('message', async ({ id, request }: { id: number; request: Request }) => {
    try {
      port.postMessage({ id, result: await handle(request) } satisfies Envelope);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Envelope);
    }
  });
};

/** CPU seconds this thread has used. */
export const threadCpuSeconds = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1e6;
};

/** CPU seconds the whole process (every thread) has used. */
export const processCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
