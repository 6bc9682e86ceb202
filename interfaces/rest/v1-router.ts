import { Router, type RequestHandler } from 'express';
import { v1RenderInput } from '../../application/renders/v1-render.js';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { PdfBody, RequestsQuery, ScreenshotBody, V1RenderBody, V1RenderQuery } from '../schemas/v1-schemas.js';
import { contextOf } from './request-context.js';

/** When the v1 render and requests list were deprecated (2026-01-01T00:00:00Z), as RFC 9745 writes it. */
const DEPRECATED_SINCE = `@${Date.UTC(2026, 0, 1) / 1000}`;

/** Each deprecated path and the v2 path that replaces it. */
const DEPRECATED_PATHS: Readonly<Record<string, string>> = {
  '/api/v1/render': '/api/v2/render',
  '/api/v1/requests': '/api/v2/results',
};

/**
 * RFC 9745 `Deprecation` and a `successor-version` link on every answer of a deprecated path,
 * errors and refused keys included, so clients learn of it whatever they sent.
 */
export const deprecationHeaders = (): RequestHandler => (req, res, next) => {
  const successor = DEPRECATED_PATHS[req.path.replace(/\/$/, '')];
  if (successor) {
    res.setHeader('Deprecation', DEPRECATED_SINCE);
    res.setHeader('Link', `<${successor}>; rel="successor-version"`);
  }
  next();
};

/** Screenshots and PDFs of web pages, and the deprecated v1 render and requests list. */
export const v1Router = ({ captures, renders, requests }: AppServices): Router => {
  const router = Router();

  router.post('/v1/screenshots', async (req, res) => {
    res.json(await captures.capture(contextOf(res), { kind: 'screenshot', ...parseInput(ScreenshotBody, req.body, 'body') }));
  });

  router.post('/v1/pdf', async (req, res) => {
    res.json(await captures.capture(contextOf(res), { kind: 'pdf', ...parseInput(PdfBody, req.body, 'body') }));
  });

  router.post('/v1/render', async (req, res) => {
    const { options } = parseInput(V1RenderQuery, req.query, 'query');
    const input = v1RenderInput(parseInput(V1RenderBody, req.body, 'body'), { simpleArray: options === 'USE_SIMPLE_ARRAY' });
    const { requestId, href } = await renders.render(contextOf(res), input);
    res.json({ requestId, href });
  });

  router.get('/v1/requests', async (req, res) => {
    res.json(await requests.list(contextOf(res), parseInput(RequestsQuery, req.query, 'query')));
  });

  return router;
};
