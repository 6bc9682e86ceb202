import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * A client of the running service's batch API, for the CLI: a batch is started by the service,
 * whose Temporal workers render it, so this talks HTTP and never opens the database.
 */

/** The 202 answer to a submitted batch. */
export interface SubmittedBatch {
  readonly identifier: string;
  readonly name: string;
  readonly status: 'pending';
  readonly total: number;
}

/** A batch as GET /api/v2/batches/{id} answers it (only the fields the CLI reads are named). */
export interface Batch {
  readonly identifier: string;
  readonly status: 'pending' | 'running' | 'done' | 'cancelled';
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  /** Non-null once the batch has ended. */
  readonly finishedAt: string | null;
  readonly [field: string]: unknown;
}

export interface BatchSubmission {
  readonly template: string;
  /** A CSV file: a header row naming the template's values (and optionally fileName), then one row per render. */
  readonly csvPath: string;
  readonly name?: string;
  readonly outputFormat?: string;
  readonly templateVersion?: number;
  readonly cache?: boolean;
  readonly webhookUrl?: string;
  readonly merge?: boolean;
}

/** The service refused a request: its `msg` and one line per problem. */
export class ServiceError extends Error {
  readonly status: number;
  readonly errors: readonly string[];

  constructor(message: string, status: number, errors: readonly string[]) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.errors = errors;
  }

  /** What to tell the operator: the message, then each problem not already said by it. */
  lines(): string[] {
    return [`${this.message} (HTTP ${this.status})`, ...this.errors.filter((line) => line !== this.message).map((line) => `  ${line}`)];
  }
}

/** The service could not be reached, or answered something that is not its API. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

const DEFAULT_URL = 'http://127.0.0.1:3000';

/** The service's base URL: `--url`, else RENDER_SERVICE_URL, else the local default; http(s) only, without a trailing slash. */
export const serviceUrl = (given: string | undefined, env: NodeJS.ProcessEnv = process.env): string => {
  const raw = given ?? (env.RENDER_SERVICE_URL || DEFAULT_URL);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConnectionError(`the service URL ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConnectionError(`the service URL must be http or https, not ${url.protocol}`);
  return url.href.replace(/\/+$/, '');
};

/** Errors of transport are worth a retry while polling; answers of the service other than 502-504 are not. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

export interface BatchClient {
  submit(submission: BatchSubmission): Promise<SubmittedBatch>;
  get(identifier: string): Promise<Batch>;
  /** Polls until the batch ends, telling `onProgress` each answer; a few transient failures in a row are tolerated. */
  waitUntilEnded(identifier: string, options?: { intervalMs?: number; onProgress?: (batch: Batch) => void }): Promise<Batch>;
  /** Streams the batch's ZIP to `file` (through `file`.part, renamed once complete); resolves with its absolute path. */
  downloadZip(identifier: string, file: string): Promise<string>;
}

export const createBatchClient = ({ url, key, fetchFn = fetch }: { url: string; key: string; fetchFn?: typeof fetch }): BatchClient => {
  const request = async (method: string, pathname: string, body?: FormData): Promise<Response> => {
    try {
      return await fetchFn(`${url}${pathname}`, { method, headers: { 'x-api-key': key, accept: 'application/json' }, body });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      throw new ConnectionError(`cannot reach the service at ${url}: ${cause?.message ?? (error as Error).message}`);
    }
  };

  /** The service's error body `{ msg, status, errors }`, or what stands in for it when something else answered. */
  const refusal = async (response: Response): Promise<ServiceError> => {
    const text = await response.text().catch(() => '');
    try {
      const body = JSON.parse(text) as { msg?: unknown; errors?: unknown };
      if (typeof body.msg === 'string') {
        const errors = Array.isArray(body.errors) ? body.errors.filter((line): line is string => typeof line === 'string') : [];
        return new ServiceError(body.msg, response.status, errors);
      }
    } catch {
      // Not the service's JSON: a proxy's page, say.
    }
    return new ServiceError(`the service answered ${response.status} ${response.statusText}`.trim(), response.status, text ? [text.slice(0, 300)] : []);
  };

  const json = async <T>(response: Response): Promise<T> => {
    if (!response.ok) throw await refusal(response);
    try {
      return (await response.json()) as T;
    } catch {
      throw new ConnectionError(`the service at ${url} answered ${response.status} with something other than JSON`);
    }
  };

  const batchPath = (identifier: string) => `/api/v2/batches/${encodeURIComponent(identifier)}`;

  const get = async (identifier: string) => json<Batch>(await request('GET', batchPath(identifier)));

  return {
    async submit(submission) {
      const form = new FormData();
      form.set('template', submission.template);
      if (submission.name !== undefined) form.set('name', submission.name);
      if (submission.outputFormat !== undefined) form.set('outputFormat', submission.outputFormat);
      if (submission.templateVersion !== undefined) form.set('templateVersion', String(submission.templateVersion));
      if (submission.cache !== undefined) form.set('cache', String(submission.cache));
      if (submission.webhookUrl !== undefined) form.set('webhookUrl', submission.webhookUrl);
      if (submission.merge !== undefined) form.set('merge', String(submission.merge));
      // A Blob backed by the file: read as the body is sent, not loaded beforehand.
      const csv = await openAsBlob(submission.csvPath, { type: 'text/csv' });
      form.set('file', csv as Blob, path.basename(submission.csvPath));
      return json<SubmittedBatch>(await request('POST', '/api/v2/batches', form));
    },

    get,

    async waitUntilEnded(identifier, { intervalMs = 1000, onProgress } = {}) {
      let failures = 0;
      for (;;) {
        let batch: Batch | undefined;
        try {
          batch = await get(identifier);
          failures = 0;
        } catch (error) {
          const transient = error instanceof ConnectionError || (error instanceof ServiceError && TRANSIENT_STATUSES.has(error.status));
          if (!transient || ++failures >= 5) throw error;
        }
        if (batch) {
          onProgress?.(batch);
          if (batch.finishedAt !== null) return batch;
        }
        await sleep(intervalMs);
      }
    },

    async downloadZip(identifier, file) {
      const target = path.resolve(file);
      const response = await request('GET', `${batchPath(identifier)}/zip`);
      if (!response.ok) throw await refusal(response);
      if (!response.body) throw new ConnectionError('the service answered the ZIP with an empty body');
      const partial = `${target}.part`;
      try {
        await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), createWriteStream(partial));
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error instanceof Error && !(error instanceof ServiceError) ? new ConnectionError(`the ZIP could not be saved to ${target}: ${error.message}`) : error;
      }
      return target;
    },
  };
};
