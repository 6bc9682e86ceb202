import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DEFAULT_RETRY_AFTER_SECONDS, type DomainError, UnavailableError, validationError } from '../../domain/shared/errors.js';
import type { ParsingOutcome, ParsingResults, ParsingTask } from './parsing-worker.js';
import { TYPESCRIPT_FLAGS } from '../system/node-flags.js';

/*
 * Uploaded files are parsed in worker threads, never on the thread that answers requests: a file
 * built to make a parser spin or swell then costs one thread of this pool, which is killed and
 * replaced, and the upload is refused with a 400. Threads start on the first upload and end when
 * unused, so a process that never sees an upload never pays for them.
 */

export interface ParsingPoolOptions {
  /** Threads at most, each parsing one file at a time. */
  readonly threads: number;
  /** How long one file may take once a thread has taken it; then the thread is killed and the file refused. */
  readonly timeLimitMs: number;
  /** The V8 heap (old generation) one thread may use; a thread that needs more dies and the file is refused. */
  readonly heapLimitMb: number;
  /** Files waiting for a thread at most; one more is refused (503) rather than queued without end. */
  readonly maxWaiting: number;
  /** How long a thread stays without work before it ends. */
  readonly idleMs: number;
}

/**
 * The service's pool. One thread where the machine has two cores, so the requests' thread and renders
 * keep a core; a sanitized SVG at the element limit still finishes there well inside the time limit.
 */
export const SERVICE_PARSING_LIMITS: ParsingPoolOptions = {
  threads: Math.min(2, Math.max(1, availableParallelism() - 1)),
  timeLimitMs: 10_000,
  heapLimitMb: 256,
  maxWaiting: 8,
  idleMs: 60_000,
};

export interface ParsingPool {
  /** Parses in a worker thread; `refuse` words the 400 for a file that took too long or too much memory. */
  run<K extends ParsingTask['kind']>(task: ParsingTask & { readonly kind: K }, refuse: (why: string) => DomainError): Promise<ParsingResults[K]>;
  /** Kills the threads; anything still parsing is refused. */
  close(): Promise<void>;
}

const WORKER = new URL('./parsing-worker.ts', import.meta.url).href;
/** Threads run the TypeScript sources as the service does (whoever started this process: a test runner too). */
const WORKER_EXEC_ARGV = [...TYPESCRIPT_FLAGS];
const YOUNG_GENERATION_MB = 16;
/**
 * How long a new thread may take to start and load a parser, before the first file it parses: past
 * it, the machine is too busy to check uploads now (503), which is no fault of the file.
 */
const WARM_UP_LIMIT_MS = 60_000;

const busy = () => new UnavailableError('Too many uploaded files are being checked at once; try again shortly', DEFAULT_RETRY_AFTER_SECONDS);

/**
 * At most `capacity` at once and `maxWaiting` waiting for them; a finished task hands its place to the
 * first waiting one, so a task's time limit starts when it runs, not while it waits.
 */
const createTurns = (capacity: number, maxWaiting: number) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  const take = async (): Promise<void> => {
    if (running < capacity) {
      running++;
      return;
    }
    if (waiting.length >= maxWaiting) throw busy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const pass = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return { take, pass };
};

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';
const isOutOfMemory = (error: unknown) => (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';

export const createParsingPool = (options: ParsingPoolOptions): ParsingPool => {
  let pool: Piscina | null = null;
  let closed = false;
  const turns = createTurns(options.threads, options.maxWaiting);
  /**
   * Parsers loaded in the live thread; forgotten when it ends (idle, killed), for the next to load
   * again. Where the machine allows more than one thread, a second one started for a file parsed
   * meanwhile still loads within that file's time.
   */
  const warmed = new Set<ParsingTask['kind']>();
  const poolOf = () =>
    (pool ??= new Piscina({
      filename: WORKER,
      execArgv: WORKER_EXEC_ARGV,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: options.idleMs,
      resourceLimits: { maxOldGenerationSizeMb: options.heapLimitMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    }));

  /**
   * A file's time limit is its parse: a thread's start and its parser's load come first, outside it.
   * Counted in the limit, they made a first upload on a busy machine look like a file that spins.
   */
  const warmUp = async (kind: ParsingTask['kind']) => {
    const current = poolOf();
    if (current.threads.length === 0) warmed.clear();
    if (warmed.has(kind)) return;
    try {
      await current.run({ kind, content: new Uint8Array(0), warmOnly: true } satisfies ParsingTask, { signal: AbortSignal.timeout(WARM_UP_LIMIT_MS) });
    } catch (error) {
      // A thread past the limit was killed, and its replacement loads its parsers again.
      warmed.clear();
      if (closed || isAbort(error)) throw busy();
      throw error;
    }
    warmed.add(kind);
  };

  const parse = async (task: ParsingTask, refuse: (why: string) => DomainError): Promise<unknown> => {
    await warmUp(task.kind);
    let outcome: ParsingOutcome<unknown>;
    try {
      // Past the signal, Piscina terminates the thread that runs the task and starts another on demand.
      outcome = await poolOf().run(task, { signal: AbortSignal.timeout(options.timeLimitMs) });
    } catch (error) {
      if (closed) throw busy();
      // The thread was killed: the one that replaces it loads its parsers again.
      warmed.clear();
      if (isAbort(error)) throw refuse('it took too long to parse');
      if (isOutOfMemory(error)) throw refuse('parsing it needed more memory than an upload may use');
      throw error;
    }
    if ('refusal' in outcome) throw validationError(outcome.refusal.message, outcome.refusal.details);
    return outcome.value;
  };

  return {
    async run<K extends ParsingTask['kind']>(task: ParsingTask & { readonly kind: K }, refuse: (why: string) => DomainError) {
      if (closed) throw busy();
      await turns.take();
      try {
        return (await parse(task, refuse)) as ParsingResults[K];
      } finally {
        turns.pass();
      }
    },
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
};
