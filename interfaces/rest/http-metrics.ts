import type { RequestHandler } from 'express';
import type { Operations } from '../http/app-services.js';
import { followMatchedRoute } from './matched-route.js';

/** Counts and times every response by method, route pattern and status. */
export const httpMetrics =
  (operations: Pick<Operations, 'recordHttpRequest'>): RequestHandler =>
  (req, res, next) => {
    const started = performance.now();
    const route = followMatchedRoute(req);
    res.once('finish', () => {
      operations.recordHttpRequest({ method: req.method, route: route(), status: res.statusCode }, (performance.now() - started) / 1000);
    });
    next();
  };
