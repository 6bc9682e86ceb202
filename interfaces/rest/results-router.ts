import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { ListResultsQuery, ResultIdParam } from '../schemas/result-schemas.js';
import { contextOf } from './request-context.js';

export const resultsRouter = ({ results }: AppServices): Router => {
  const router = Router();

  router.get('/v2/results', async (req, res) => {
    const { template, batch, page, size } = parseInput(ListResultsQuery, req.query, 'query');
    res.json(await results.list(contextOf(res), { templateId: template, batchName: batch, page, size }));
  });

  router.get('/v2/results/:identifier', async (req, res) => {
    const { identifier } = parseInput(ResultIdParam, req.params, 'path');
    res.json(await results.get(contextOf(res), identifier));
  });

  router.delete('/v2/results/:identifier', async (req, res) => {
    const { identifier } = parseInput(ResultIdParam, req.params, 'path');
    await results.delete(contextOf(res), identifier);
    res.status(200).end();
  });

  return router;
};
