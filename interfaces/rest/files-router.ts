import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { contentDisposition } from '../http/content-disposition.js';
import { errorBody } from '../http/error-mapping.js';
import { parseInput } from '../http/parse-input.js';
import { FileParams, FileQuery } from '../schemas/result-schemas.js';
import { matchesIfNoneMatch, parseRangeHeader } from './conditional-requests.js';

/** Result files at their href; the link itself (and its signature when it expires) is the credential. */
export const filesRouter = ({ results }: AppServices): Router => {
  const router = Router();

  router.get('/files/:requestId/:fileName', async (req, res) => {
    const { requestId, fileName } = parseInput(FileParams, req.params, 'path');
    const ifNoneMatch = req.get('If-None-Match');
    // If-Range would make the range depend on the version; answering with the whole file is always
    // correct (RFC 9110 §13.1.5), and results are never replaced under the same href anyway.
    const range = req.get('If-Range') === undefined ? parseRangeHeader(req.get('Range')) : null;
    const file = await results.openFile(requestId, fileName, parseInput(FileQuery, req.query, 'query'), {
      ...(range ? { range } : {}),
      ...(ifNoneMatch === undefined ? {} : { isFresh: (etag: string) => matchesIfNoneMatch(ifNoneMatch, etag) }),
    });
    res.setHeader('ETag', file.etag);
    // Signed links expire; a shared cache must not keep serving the file past that.
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('Accept-Ranges', 'bytes');
    if (file.kind === 'not-modified') {
      res.status(304).end();
      return;
    }
    if (file.kind === 'range-not-satisfiable') {
      res.setHeader('Content-Range', `bytes */${file.size}`);
      const msg = `The range starts past the end of the file (${file.size} bytes)`;
      res.status(416).json(errorBody(416, msg));
      return;
    }
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', contentDisposition('inline', file.fileName));
    if (file.range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${file.range.start}-${file.range.end}/${file.size}`);
      res.setHeader('Content-Length', file.range.end - file.range.start + 1);
    } else {
      res.setHeader('Content-Length', file.size);
    }
    try {
      await pipeline(file.stream, res);
    } catch (error) {
      // Headers are gone by now, so no error body can follow: the cut connection tells the client,
      // and a client that hung up (a player seeking elsewhere) is no failure at all.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.warn({ err: error }, 'file download failed midway');
    }
  });

  return router;
};
