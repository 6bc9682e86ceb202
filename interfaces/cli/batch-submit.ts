import { access, constants } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import { type Batch, ConnectionError, createBatchClient, serviceUrl, ServiceError, type SubmittedBatch } from './batch-client.js';

export interface BatchSubmitOptions {
  readonly template: string;
  readonly csv: string;
  readonly name?: string;
  readonly outputFormat?: string;
  readonly templateVersion?: number;
  /** false with --no-cache. */
  readonly cache: boolean;
  readonly webhookUrl?: string;
  readonly merge?: boolean;
  readonly wait?: boolean;
  readonly zip?: string;
  readonly url?: string;
  readonly key?: string;
  /** false with --no-progress. */
  readonly progress: boolean;
}

/** One JSON document a line, so that scripts can read stdout line by line. */
const line = (value: unknown) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);

/** The progress of a batch on stderr (stdout stays data): done + failed out of total, drawn on a terminal and a line a second elsewhere. */
const progressBar = (enabled: boolean, submitted: SubmittedBatch) => {
  if (!enabled) return { update: (_batch: Batch) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `batch ${submitted.name} |{bar}| {value}/{total} rows | {failed} failed | {status}`,
      noTTYOutput: true,
      notTTYSchedule: 1000,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(submitted.total, 1), 0, { failed: 0, status: submitted.status });
  return {
    update(batch: Batch) {
      bar.setTotal(Math.max(batch.total, 1));
      bar.update(batch.done + batch.failed, { failed: batch.failed, status: batch.status });
    },
    stop: () => bar.stop(),
  };
};

/**
 * `batch submit`: uploads a CSV to the running service as a batch and prints its 202 answer; with
 * --wait follows it to its end and prints the final batch, with --zip then saves its ZIP.
 */
export const batchSubmit = async (options: BatchSubmitOptions): Promise<void> => {
  const key = options.key || process.env.RENDER_API_KEY;
  const fail = (lines: readonly string[]) => {
    // The key is never shown, even should some answer echo it.
    for (const text of lines) process.stderr.write(`${key ? text.split(key).join('***') : text}\n`);
    process.exitCode = 1;
  };
  if (!key) return fail(['error: no API key: pass --key <key> or set RENDER_API_KEY']);
  try {
    await access(options.csv, constants.R_OK);
  } catch (error) {
    return fail([`error: cannot read the CSV ${options.csv}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }

  try {
    const client = createBatchClient({ url: serviceUrl(options.url), key });
    const submitted = await client.submit({
      template: options.template,
      csvPath: options.csv,
      name: options.name,
      outputFormat: options.outputFormat,
      templateVersion: options.templateVersion,
      cache: options.cache === false ? false : undefined,
      webhookUrl: options.webhookUrl,
      merge: options.merge,
    });
    line(submitted);
    if (!options.wait && options.zip === undefined) return;

    const bar = progressBar(options.progress, submitted);
    let ended: Batch;
    try {
      ended = await client.waitUntilEnded(submitted.identifier, { intervalMs: 1000, onProgress: bar.update });
    } finally {
      bar.stop();
    }
    line(ended);
    if (options.zip !== undefined) line(await client.downloadZip(submitted.identifier, options.zip));
  } catch (error) {
    if (error instanceof ServiceError) return fail(error.lines().map((text, index) => (index === 0 ? `error: ${text}` : text)));
    if (error instanceof ConnectionError) return fail([`error: ${error.message}`]);
    throw error;
  }
};
