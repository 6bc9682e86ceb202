import { pipeline } from 'node:stream/promises';
import express, { Router, type Request } from 'express';
import type { SubmitBatchInput } from '../../application/batches/submit-batch/submit-batch.js';
import type { AppServices } from '../http/app-services.js';
import { contentDisposition } from '../http/content-disposition.js';
import { readMultipartFile } from '../http/multipart-file.js';
import { parseInput } from '../http/parse-input.js';
import { BATCH_FORM_FIELDS, BatchBody, BatchFormFields, BatchIdParam, ListBatchesQuery, MAX_BATCH_CSV_BYTES } from '../schemas/batch-schemas.js';
import { contextOf } from './request-context.js';

/** A JSON batch's rows may weigh as much as the largest CSV: more than the body limit of other requests. */
export const batchJsonBody = express.json({ limit: MAX_BATCH_CSV_BYTES, strict: true });

/** A batch from a JSON body, or from a CSV file and form fields. */
const submission = async (req: Request): Promise<SubmitBatchInput> => {
  if (!req.is('multipart/form-data')) return parseInput(BatchBody, req.body, 'body');
  const { content, fields } = await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_BATCH_CSV_BYTES, textFields: BATCH_FORM_FIELDS });
  return { ...parseInput(BatchFormFields, fields, 'form'), rows: { csv: content } };
};

/** Batches of renders from rows of data (an extension of this service). */
export const batchesRouter = ({ batches }: AppServices): Router => {
  const router = Router();

  router.post('/v2/batches', async (req, res) => {
    res.status(202).json(await batches.submit(contextOf(res), await submission(req)));
  });

  router.get('/v2/batches', async (req, res) => {
    res.json(await batches.list(contextOf(res), parseInput(ListBatchesQuery, req.query, 'query')));
  });

  router.get('/v2/batches/:identifier', async (req, res) => {
    const { identifier } = parseInput(BatchIdParam, req.params, 'path');
    res.json(await batches.get(contextOf(res), identifier));
  });

  router.delete('/v2/batches/:identifier', async (req, res) => {
    const { identifier } = parseInput(BatchIdParam, req.params, 'path');
    await batches.cancel(contextOf(res), identifier);
    res.json(await batches.get(contextOf(res), identifier));
  });

  router.get('/v2/batches/:identifier/zip', async (req, res) => {
    const { identifier } = parseInput(BatchIdParam, req.params, 'path');
    const archive = await batches.archive(contextOf(res), identifier);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', contentDisposition('attachment', archive.fileName));
    res.setHeader('Cache-Control', 'private, no-store');
    try {
      await archive.writeTo(res);
    } catch (error) {
      // The headers are gone: a cut connection is all the client can be told.
      req.log.warn({ err: error }, 'batch ZIP failed midway');
      res.destroy();
    }
  });

  router.get('/v2/batches/:identifier/merged.pdf', async (req, res) => {
    const { identifier } = parseInput(BatchIdParam, req.params, 'path');
    const merged = await batches.merged(contextOf(res), identifier);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', contentDisposition('attachment', merged.fileName));
    try {
      await pipeline(merged.stream, res);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.warn({ err: error }, 'merged PDF download failed midway');
    }
  });

  return router;
};
