import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { SubmitBatchInput } from '../../../application/batches/submit-batch/submit-batch.js';
import { MAX_BATCH_ROWS } from '../../../domain/batches/batch-decider.js';
import {
  BATCH_FORM_FIELDS,
  BatchBody,
  BatchForm,
  BatchFormFields,
  BatchIdParam,
  BatchPage,
  BatchSchema,
  ListBatchesQuery,
  MAX_BATCH_CSV_BYTES,
  SubmittedBatchSchema,
} from '../../schemas/batch-schemas.js';
import { contentDisposition } from '../content-disposition.js';
import { readMultipartFile } from '../multipart-file.js';
import { operation } from '../operation.js';
import { parseInput } from '../parse-input.js';

// Batches of renders from rows of data (an extension of this service).

const tags = ['batches'] as const;

/** A batch from a JSON body, or from a CSV file and form fields. */
const submission = async (req: Request): Promise<SubmitBatchInput> => {
  if (!req.is('multipart/form-data')) return parseInput(BatchBody, req.body, 'body');
  const { content, fields } = await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_BATCH_CSV_BYTES, textFields: BATCH_FORM_FIELDS });
  return { ...parseInput(BatchFormFields, fields, 'form'), rows: { csv: content } };
};

export const submitBatch = operation({
  id: 'submitBatch',
  method: 'post',
  path: '/api/v2/batches',
  tags,
  summary: 'Render a template once per row of data',
  description:
    `A JSON body with rows, or multipart/form-data with file = a CSV (RFC 4180, UTF-8 with or without a byte order mark, at most 20 MB): its header row names ` +
    `the template's properties (canvas) or merge fields (html-editor), and an optional fileName column names each row's file; an empty cell leaves the value out; ` +
    `the other fields as form fields. At most ${MAX_BATCH_ROWS} rows. Every row is checked as a single render would be, and a key or column the template does not use ` +
    `is refused too: a bad batch is one 400 naming up to 20 bad rows by number (from 1) and column, with nothing recorded. The rows cost what their renders cost ` +
    `(one credit an image, video by the second; cache hits free), and the account must hold that much (402 otherwise). Each row is a render of its own, listed ` +
    `by GET /api/v2/results?batch=<name> and charged once however often it is retried.`,
  input: { body: BatchBody, form: BatchForm },
  answer: { status: 202, description: 'Accepted: the batch is recorded and its rows will render', schema: SubmittedBatchSchema },
  readBody: submission,
  call: ({ batches }, context, { body }) => batches.submit(context, body),
});

export const listBatches = operation({
  id: 'listBatches',
  method: 'get',
  path: '/api/v2/batches',
  tags,
  summary: "The organization's batches, newest first",
  input: { query: ListBatchesQuery },
  answer: { description: 'One page of batches', schema: BatchPage },
  call: ({ batches }, context, { query }) => batches.list(context, query),
});

export const getBatch = operation({
  id: 'getBatch',
  method: 'get',
  path: '/api/v2/batches/{identifier}',
  tags,
  summary: 'A batch and how far its rows got',
  input: { path: BatchIdParam },
  answer: { description: 'The batch', schema: BatchSchema },
  call: ({ batches }, context, { path }) => batches.get(context, path.identifier),
});

export const cancelBatch = operation({
  id: 'cancelBatch',
  method: 'delete',
  path: '/api/v2/batches/{identifier}',
  tags,
  summary: 'Cancel the rows of a batch not started yet (never charged); rows rendering now finish',
  description: 'Cancelling a cancelled batch again changes nothing; an ended batch is a 409.',
  input: { path: BatchIdParam },
  answer: { description: 'The batch as it stands', schema: BatchSchema },
  call: async ({ batches }, context, { path }) => {
    await batches.cancel(context, path.identifier);
    return batches.get(context, path.identifier);
  },
});

export const downloadBatchZip = operation({
  id: 'downloadBatchZip',
  method: 'get',
  path: '/api/v2/batches/{identifier}/zip',
  tags,
  summary: 'A ZIP of the files the batch made so far, streamed, with manifest.csv (row, requestId, status, fileName, reason)',
  input: { path: BatchIdParam },
  answer: { description: 'The ZIP', binary: ['application/zip'] },
  call: ({ batches }, context, { path }) => batches.archive(context, path.identifier),
  send: async (res, archive, { request }) => {
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', contentDisposition('attachment', archive.fileName));
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await archive.writeTo(res);
    } catch (error) {
      // The headers are gone: a cut connection is all the client can be told.
      request.log.warn({ err: error }, 'batch ZIP failed midway');
      res.destroy();
    }
  },
});

export const downloadBatchMergedPdf = operation({
  id: 'downloadBatchMergedPdf',
  method: 'get',
  path: '/api/v2/batches/{identifier}/merged.pdf',
  tags,
  summary: 'A merged batch: one PDF of every row that made a file, in row order, one outline entry per row',
  input: { path: BatchIdParam },
  answer: { description: 'The PDF', binary: ['application/pdf'] },
  call: ({ batches }, context, { path }) => batches.merged(context, path.identifier),
  send: async (res, merged, { request }) => {
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDisposition('attachment', merged.fileName));
    try {
      await pipeline(merged.stream, res);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') request.log.warn({ err: error }, 'merged PDF download failed midway');
    }
  },
});
