import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { batchDecider } from '../../../domain/batches/batch-decider.js';
import { batchStream } from '../../../domain/batches/batch-events.js';
import { outputExtension, type OutputFormat } from '../../../domain/renders/output-formats.js';
import { notFound } from '../../../domain/shared/errors.js';
import type { ZipEntry, ZipWriter } from '../../ports/batch-files.js';
import type { EventStore } from '../../ports/event-store.js';
import type { FileStorage } from '../../ports/file-storage.js';
import type { BatchReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { aggregateStream } from '../../shared/stream-reads.js';
import { loadRows, rowRequestId } from '../batch-rows.js';
import { uniqueFileNames } from '../file-names.js';
import { rowResults } from '../row-results.js';

export interface BatchArchiveDeps {
  readonly batches: BatchReadModel;
  readonly storage: FileStorage;
  readonly eventStore: EventStore;
  readonly zipWriter: ZipWriter;
}

export interface BatchArchive {
  /** What the ZIP is called when saved. */
  readonly fileName: string;
  /** Writes the ZIP as it goes: each file made so far, in row order, then manifest.csv. */
  writeTo(out: Writable): Promise<void>;
}

const MANIFEST_COLUMNS = ['row', 'requestId', 'status', 'fileName', 'reason'];

/** A stored file as a stream; null when it is gone (deleted since the batch counted it). */
const openStored = async (storage: FileStorage, storageKey: string) => {
  const opened = await storage.open(storageKey);
  return opened && 'stream' in opened ? opened.stream : null;
};

/**
 * The files a batch made so far, named after their rows' fileName (else the row number), unique in
 * the archive, and a manifest of every row: what became of it and under which name it is in the ZIP.
 */
export const batchArchive = async (deps: BatchArchiveDeps, context: RequestContext, batchId: string): Promise<BatchArchive> => {
  requireScope(context, 'render');
  const batch = await deps.batches.get(context.caller.orgId, batchId);
  if (!batch) throw notFound('Batch');
  const { state } = await aggregateStream(deps.eventStore, batchStream(batchId), batchDecider);
  if (state.status === 'absent') throw notFound('Batch');
  const rows = await loadRows(deps.storage, state.request.rows);
  const names = uniqueFileNames(rows.map((row) => row.fileName ?? null), outputExtension(batch.outputFormat as OutputFormat));
  const results = await rowResults(deps.batches, batch.orgId, batch.id, batch.total);
  const { total } = batch;
  const { refused: refusedRows } = state;

  async function* entries(): AsyncGenerator<ZipEntry> {
    const manifest: string[][] = [];
    for (let number = 1; number <= total; number++) {
      const requestId = rowRequestId(batchId, number);
      const result = results.get(number);
      const refused = refusedRows.get(number);
      const status = refused !== undefined ? 'failed' : (result?.status ?? 'not started');
      const storageKey = result?.status === 'done' ? result.storageKey : null;
      const name = names[number - 1] ?? `row-${number}`;
      manifest.push([String(number), requestId, status, storageKey ? name : '', refused ?? result?.failureReason ?? '']);
      if (storageKey) yield { name, open: () => openStored(deps.storage, storageKey) };
    }
    yield { name: 'manifest.csv', open: async () => Buffer.from(stringify([MANIFEST_COLUMNS, ...manifest]), 'utf8') };
  }

  return { fileName: `${batch.name.replace(/[^\w.-]+/g, '_')}.zip`, writeTo: (out) => deps.zipWriter.write(entries(), out) };
};
