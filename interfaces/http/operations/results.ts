import { pipeline } from 'node:stream/promises';
import { contentDisposition } from '../content-disposition.js';
import { errorBody } from '../error-mapping.js';
import { ErrorBody } from '../../schemas/common.js';
import { FileParams, FileQuery, ListResultsQuery, ResultDetail, ResultIdParam, ResultPage } from '../../schemas/result-schemas.js';
import { matchesIfNoneMatch, parseRangeHeader } from '../conditional-requests.js';
import { binaryContent, jsonContent, operation } from '../operation.js';

export const listResults = operation({
  id: 'listResults',
  method: 'get',
  path: '/api/v2/results',
  tags: ['results'],
  summary: 'List render results, newest first',
  input: { query: ListResultsQuery },
  answer: { description: 'One page of results', schema: ResultPage },
  call: ({ results }, context, { query: { template, batch, page, size } }) => results.list(context, { templateId: template, batchName: batch, page, size }),
});

export const getResult = operation({
  id: 'getResult',
  method: 'get',
  path: '/api/v2/results/{identifier}',
  tags: ['results'],
  summary: 'Read a render result (poll it for video renders)',
  input: { path: ResultIdParam },
  answer: { description: 'The result', schema: ResultDetail },
  call: ({ results }, context, { path }) => results.get(context, path.identifier),
});

export const deleteResult = operation({
  id: 'deleteResult',
  method: 'delete',
  path: '/api/v2/results/{identifier}',
  tags: ['results'],
  summary: 'Delete a render result and its file',
  input: { path: ResultIdParam },
  answer: { description: 'Deleted' },
  call: ({ results }, context, { path }) => results.delete(context, path.identifier),
});

/** Result files at their href; the link itself (and its signature when it expires) is the credential. */
export const getFile = operation({
  id: 'getFile',
  method: 'get',
  path: '/files/{requestId}/{fileName}',
  access: 'link',
  tags: ['files'],
  summary: 'A rendered file at its href; no API key, expiring links carry expires and signature',
  input: { path: FileParams, query: FileQuery },
  answer: { description: 'The file, served inline', binary: ['application/octet-stream'] },
  document: {
    responses: {
      '206': { description: 'The byte range the Range header asked for', content: binaryContent(['application/octet-stream']) },
      '304': { description: 'Not modified: the file is the one the If-None-Match tag names' },
      '416': { description: 'The range starts past the end of the file', ...jsonContent(ErrorBody) },
      '403': { description: 'Signature missing, wrong or expired', ...jsonContent(ErrorBody) },
      '404': { description: 'Unknown or deleted result', ...jsonContent(ErrorBody) },
    },
  },
  call: ({ results }, _context, { path, query }, request) => {
    const ifNoneMatch = request.header('If-None-Match');
    // If-Range would make the range depend on the version; answering with the whole file is always
    // correct (RFC 9110 §13.1.5), and results are never replaced under the same href anyway.
    const range = request.header('If-Range') === undefined ? parseRangeHeader(request.header('Range')) : null;
    return results.openFile(path.requestId, path.fileName, query, {
      ...(range ? { range } : {}),
      ...(ifNoneMatch === undefined ? {} : { isFresh: (etag: string) => matchesIfNoneMatch(ifNoneMatch, etag) }),
    });
  },
  send: async (res, file, { request: req }) => {
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
      res.status(416).json(errorBody(416, `The range starts past the end of the file (${file.size} bytes)`));
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
  },
});
