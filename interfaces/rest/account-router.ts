import { Router } from 'express';
import { MAX_FONT_BYTES } from '../../application/fonts/upload-font/upload-font.js';
import type { AppServices } from '../http/app-services.js';
import { readMultipartFile } from '../http/multipart-file.js';
import { parseInput } from '../http/parse-input.js';
import { FontIdParam } from '../schemas/result-schemas.js';
import { PatchSettingsBody } from '../schemas/url-signing-schemas.js';
import { contextOf } from './request-context.js';

export const accountRouter = ({ usage, fonts, settings }: AppServices): Router => {
  const router = Router();

  router.get('/v1/usage', async (_req, res) => {
    res.json(await usage.get(contextOf(res)));
  });

  router.get('/v2/account/settings', async (_req, res) => {
    res.json(await settings.get(contextOf(res)));
  });

  router.patch('/v2/account/settings', async (req, res) => {
    res.json(await settings.change(contextOf(res), parseInput(PatchSettingsBody, req.body, 'body')));
  });

  router.get('/v1/fonts', async (_req, res) => {
    res.json(await fonts.list(contextOf(res)));
  });

  router.post('/v1/fonts', async (req, res) => {
    const { content, fields } = await readMultipartFile(req, { fileField: 'file', maxBytes: MAX_FONT_BYTES, textFields: ['family'] });
    res.json(await fonts.upload(contextOf(res), { content, ...(fields.family === undefined ? {} : { family: fields.family }) }));
  });

  router.delete('/v1/fonts/:identifier', async (req, res) => {
    const { identifier } = parseInput(FontIdParam, req.params, 'path');
    await fonts.delete(contextOf(res), identifier);
    res.status(200).end();
  });

  return router;
};
