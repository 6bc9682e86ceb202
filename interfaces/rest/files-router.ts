import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { FileParams, FileQuery } from '../schemas/result-schemas.js';

/** RFC 6266 with an ASCII fallback, so any file name survives the header. */
const inlineDisposition = (fileName: string) => {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `inline; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

/** Result files at their href; the link itself (and its signature when it expires) is the credential. */
export const filesRouter = ({ results }: AppServices): Router => {
  const router = Router();

  router.get('/files/:requestId/:fileName', async (req, res) => {
    const { requestId, fileName } = parseInput(FileParams, req.params, 'path');
    const file = await results.openFile(requestId, fileName, parseInput(FileQuery, req.query, 'query'));
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', inlineDisposition(file.fileName));
    // Signed links expire; a shared cache must not keep serving the file past that.
    res.setHeader('Cache-Control', 'private, no-cache');
    res.send(file.content);
  });

  return router;
};
