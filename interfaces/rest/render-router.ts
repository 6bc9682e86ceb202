import { Router, type Response } from 'express';
import type { RenderAnswer } from '../../application/renders/request-render/render-input.js';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { RenderBody, RenderQuery } from '../schemas/render-schemas.js';
import { contextOf } from './request-context.js';

const sendFile = async (services: AppServices, res: Response, answer: RenderAnswer) => {
  const file = await services.renders.fileOf(answer);
  res.setHeader('x-request-id', answer.requestId);
  if (answer.cached) res.setHeader('x-cached', 'true');
  res.type(file.contentType).send(file.content);
};

const jsonAnswer = ({ requestId, href, cached, status }: RenderAnswer) => ({
  requestId,
  href,
  ...(status ? { status } : {}),
  ...(cached ? { cached } : {}),
});

/**
 * A render's JSON answer, written as it is: res.json would also hash the body for an ETag and look
 * up its media type, on every cache hit, for the answer to a POST that nobody revalidates.
 */
const sendJson = (res: Response, status: number, body: object) => {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
};

export const renderRouter = (services: AppServices): Router => {
  const router = Router();
  router.post('/v2/render', async (req, res) => {
    const { output } = parseInput(RenderQuery, req.query, 'query');
    const answer = await services.renders.render(contextOf(res), parseInput(RenderBody, req.body, 'body'));
    // Video renders are asynchronous whether they start now or come from the cache (spec rule 5).
    if (answer.status) return sendJson(res, 202, jsonAnswer(answer));
    if (output === 'image' && answer.storageKey) return sendFile(services, res, answer);
    sendJson(res, 200, jsonAnswer(answer));
  });
  return router;
};
