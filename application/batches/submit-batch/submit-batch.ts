import { creditsAvailable } from '../../../domain/ledger/billing-period.js';
import { MAX_BATCH_ROWS } from '../../../domain/batches/batch-decider.js';
import type { OutputFormat } from '../../../domain/renders/output-formats.js';
import { conflict, DomainError, validationError } from '../../../domain/shared/errors.js';
import type { CsvReader } from '../../ports/batch-files.js';
import type { FileStorage } from '../../ports/file-storage.js';
import type { UrlGuard } from '../../ports/page-capture.js';
import type { AccountReadModel, BatchReadModel, ProjectionProgress, TemplateReadModel } from '../../ports/read-models.js';
import type { RenderOrchestrator } from '../../ports/render-orchestrator.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { onBatchStream } from '../../shared/stream-commands.js';
import { templateToRender } from '../../renders/request-render/template-to-render.js';
import { assertWebhookUrlAllowed } from '../../webhooks/webhook-url.js';
import { rowsOfCsv, rowsStorageKey, storeRows, type BatchRow } from '../batch-rows.js';
import { checkRows } from './check-rows.js';
import { readModelsReach } from '../../shared/read-your-writes.js';

export interface SubmitBatchDeps extends CommandDeps {
  readonly templates: Pick<TemplateReadModel, 'get'>;
  readonly accounts: Pick<AccountReadModel, 'getAccount'>;
  readonly batches: Pick<BatchReadModel, 'findByName'>;
  readonly storage: FileStorage;
  readonly orchestrator: Pick<RenderOrchestrator, 'startBatch'>;
  readonly csv: CsvReader;
  readonly urls: UrlGuard;
  readonly progress: ProjectionProgress;
}

export interface SubmitBatchInput {
  readonly template: string;
  /** The rows themselves, or a CSV whose header names the values (and `fileName`). */
  readonly rows: readonly BatchRow[] | { readonly csv: Buffer };
  readonly name?: string;
  readonly outputFormat?: OutputFormat;
  readonly templateVersion?: number;
  readonly cache?: boolean;
  readonly webhookUrl?: string;
  readonly merge?: boolean;
}

export interface SubmittedBatch {
  readonly identifier: string;
  readonly name: string;
  readonly status: 'pending';
  readonly total: number;
}

const rowsOf = (input: SubmitBatchInput, csv: CsvReader): readonly BatchRow[] =>
  'csv' in input.rows ? rowsOfCsv(csv.read(input.rows.csv, { maxRows: MAX_BATCH_ROWS }).rows) : input.rows;

/** A name for a batch that was given none: when it was asked for, and a piece of its id. */
const generatedName = (now: Date, batchId: string) => `batch-${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${batchId.slice(-6)}`;

/**
 * Accepts a batch: every row checked as its render would be and the credits for all of them there,
 * before anything is recorded; then the rows stored, the batch recorded, and its workflow started.
 * Answered once the batch is durable and readable; its rows render below interactive requests.
 */
export const submitBatch = async (deps: SubmitBatchDeps, context: RequestContext, input: SubmitBatchInput): Promise<SubmittedBatch> => {
  requireScope(context, 'render');
  const orgId = context.caller.orgId;
  await assertWebhookUrlAllowed(deps.urls, input.webhookUrl);
  const rows = rowsOf(input, deps.csv);
  if (rows.length === 0) throw validationError('A batch needs at least one row', ['rows: none given']);
  if (rows.length > MAX_BATCH_ROWS) throw validationError(`A batch has at most ${MAX_BATCH_ROWS} rows`, [`rows: ${rows.length} given; at most ${MAX_BATCH_ROWS}`]);
  const latest = await deps.templates.get(orgId, input.template);
  if (!latest) throw validationError(`Template ${input.template} not found`, [`template: no template ${input.template}`]);
  const template = await templateToRender(deps.eventStore, latest, input.templateVersion);
  const outputFormat = input.outputFormat ?? template.outputFormat;
  if (input.merge && outputFormat !== 'pdf') throw validationError('Only PDF batches can be merged', [`merge: needs outputFormat pdf, not ${outputFormat}`]);
  const credits = checkRows(template, rows, input.outputFormat);

  const account = await deps.accounts.getAccount(orgId);
  if (!account) throw new DomainError('forbidden', 'Organization not found');
  const now = deps.clock.now();
  const left = creditsAvailable(account, now.toISOString().slice(0, 10));
  if (left < credits) throw new DomainError('payment_required', 'Not enough credits', [`this batch costs ${credits} credits (one per image row, video by the second); ${left} left`]);

  const batchId = deps.ids.next();
  const name = input.name ?? generatedName(now, batchId);
  if (await deps.batches.findByName(orgId, name)) throw conflict(`A batch named ${name} exists already; results list by batch name, so give this one another`);
  const stored = await storeRows(deps.storage, rowsStorageKey(orgId, batchId), rows);
  const recorded = await onBatchStream(
    deps,
    batchId,
    {
      type: 'RequestBatch',
      data: {
        batchId,
        orgId,
        name,
        templateId: template.id,
        templateVersion: template.version,
        outputFormat,
        total: rows.length,
        rows: stored,
        credits,
        cache: input.cache !== false,
        webhookUrl: input.webhookUrl ?? null,
        merge: input.merge === true,
        requestedAt: now.toISOString(),
      },
    },
    context,
    { newStream: true },
  );
  await deps.orchestrator.startBatch({ batchId });
  // A client that asks for the batch as soon as it has the answer finds it.
  await readModelsReach(deps.progress, recorded.position);
  return { identifier: batchId, name, status: 'pending', total: rows.length };
};
