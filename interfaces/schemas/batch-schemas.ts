import { z } from 'zod';
import { MAX_BATCH_ROWS } from '../../domain/batches/batch-decider.js';
import { FILE_NAME_RULE } from '../../domain/renders/file-names.js';
import { OUTPUT_FORMATS } from '../../domain/renders/output-formats.js';
import { pageQuery } from './common.js';
import { ResultPage } from './result-schemas.js';

/** The largest CSV a batch may be sent as. */
export const MAX_BATCH_CSV_BYTES = 20 * 1024 * 1024;

const batchOptions = {
  template: z.string().min(1).max(200),
  name: z.string().regex(/^[\w][\w .-]{0,199}$/, 'letters, digits, space, dot, dash and underscore; at most 200 characters').optional().meta({ description: "Each row's batchName; generated when absent" }),
  outputFormat: z.enum(OUTPUT_FORMATS).optional().meta({ description: "The template's by default" }),
  templateVersion: z.number().int().min(1).max(1_000_000).optional().meta({ description: 'The template version every row draws; the published one, else the latest, by default' }),
  cache: z.boolean().optional().meta({ description: 'Rows identical to an earlier render are answered from the render cache, free (true by default)' }),
  webhookUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048).optional().meta({ description: 'Told batch.completed with the counts when the batch ends' }),
  merge: z.boolean().optional().meta({ description: 'PDF batches: one PDF of every row in order, one outline entry per row (mergedHref)' }),
};

export const BatchRowBody = z
  .object({
    data: z.record(z.string(), z.unknown()).optional(),
    // Checked with the rest of the row, so that a bad name is reported by its row number like any other problem.
    fileName: z.string().max(1000).optional().meta({ description: FILE_NAME_RULE }),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const BatchBody = z
  .object({ ...batchOptions, rows: z.array(BatchRowBody).min(1).max(MAX_BATCH_ROWS).meta({ description: `At most ${MAX_BATCH_ROWS} rows` }) })
  .strict()
  .meta({ id: 'BatchRequest' });

/** The form fields of a CSV batch besides its file, as text. */
export const BatchFormFields = z
  .object({
    ...batchOptions,
    templateVersion: z.coerce.number().int().min(1).max(1_000_000).optional(),
    cache: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
    merge: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
  })
  .strict();

export const BATCH_FORM_FIELDS = Object.keys(BatchFormFields.shape);

export const BatchIdParam = z.object({ identifier: z.string().min(1).max(200) });

export const ListBatchesQuery = z.object(pageQuery);

export const SubmittedBatchSchema = z
  .object({ identifier: z.string(), name: z.string(), status: z.literal('pending'), total: z.number().int() })
  .meta({ id: 'SubmittedBatch' });

const batchStatus = z.enum(['pending', 'running', 'done', 'cancelled']);

export const BatchSchema = z
  .object({
    identifier: z.string(),
    name: z.string(),
    template: z.string(),
    templateVersion: z.number().int().nullable(),
    outputFormat: z.string(),
    status: batchStatus,
    total: z.number().int(),
    done: z.number().int().meta({ description: 'Rows with a file, cache hits included' }),
    failed: z.number().int(),
    cached: z.number().int(),
    creditsCharged: z.number().int(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    failures: z.array(z.object({ row: z.number().int(), msg: z.string() })).meta({ description: 'The first 100 rows that failed, numbered from 1' }),
    zipHref: z.string().meta({ description: 'GET with the API key: a ZIP of the files made so far and manifest.csv' }),
    mergedHref: z.string().nullable(),
  })
  .meta({ id: 'Batch' });

export const BatchListItemSchema = z
  .object({ identifier: z.string(), name: z.string(), template: z.string(), status: batchStatus, total: z.number().int(), createdAt: z.string(), finishedAt: z.string().nullable() })
  .meta({ id: 'BatchListItem' });

export const BatchPage = ResultPage.extend({ content: z.array(BatchListItemSchema) }).meta({ id: 'PageBatch' });

export const BatchForm = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'The rows as CSV: a header row naming the values (and fileName), then one row per render' }),
    template: z.string(),
    name: z.string().optional(),
    outputFormat: z.string().optional(),
    templateVersion: z.string().optional(),
    cache: z.enum(['true', 'false']).optional(),
    webhookUrl: z.string().optional(),
    merge: z.enum(['true', 'false']).optional(),
  })
  .meta({ id: 'BatchForm' });
