import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { MAX_IMAGE_BYTES } from '../../application/uploads/upload-image/upload-image.js';
import type { AppServices } from '../http/app-services.js';
import { readMultipartFile } from '../http/multipart-file.js';
import { parseInput } from '../http/parse-input.js';
import { ListUploadsQuery, UploadIdParam } from '../schemas/result-schemas.js';
import { contextOf } from './request-context.js';

/*
 * An uploaded SVG served at its href must not run even if a browser opens it as a page: it was
 * sanitized on the way in, and the answer forbids scripts and every fetch besides.
 */
const FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
  'Cache-Control': 'private, no-cache',
};

export const uploadsRouter = ({ uploads }: AppServices): Router => {
  const router = Router();

  router.post('/v2/uploads', async (req, res) => {
    const { content } = await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_IMAGE_BYTES, textFields: [] });
    res.json(await uploads.upload(contextOf(res), content));
  });

  router.get('/v2/uploads', async (req, res) => {
    res.json(await uploads.list(contextOf(res), parseInput(ListUploadsQuery, req.query, 'query')));
  });

  router.delete('/v2/uploads/:identifier', async (req, res) => {
    const { identifier } = parseInput(UploadIdParam, req.params, 'path');
    await uploads.delete(contextOf(res), identifier);
    res.status(200).end();
  });

  router.get('/v2/uploads/:identifier/file', async (req, res) => {
    const { identifier } = parseInput(UploadIdParam, req.params, 'path');
    const { file, contentType } = await uploads.readFile(contextOf(res), identifier);
    if (!('stream' in file)) throw new Error('a whole-file read cannot be unsatisfiable');
    res.set({ ...FILE_HEADERS, 'Content-Type': contentType, 'Content-Length': String(file.size), ETag: file.etag });
    try {
      await pipeline(file.stream, res);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.warn({ err: error }, 'upload download failed midway');
    }
  });

  return router;
};
