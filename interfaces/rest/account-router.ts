import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { contextOf } from './request-context.js';

export const accountRouter = ({ usage, fonts }: AppServices): Router => {
  const router = Router();

  router.get('/v1/usage', async (_req, res) => {
    res.json(await usage.get(contextOf(res)));
  });

  router.get('/v1/fonts', async (_req, res) => {
    res.json(await fonts.list());
  });

  return router;
};
