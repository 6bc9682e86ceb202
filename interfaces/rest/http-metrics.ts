import type { RequestHandler } from 'express';
import type { Operations } from '../http/app-services.js';

/** Requests no route answered (404s, tRPC, middleware refusals) share one series whatever their path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The series label of a request: the router's mount path and the route's pattern, never the raw URL. */
export const routeLabel = (baseUrl: string, routePath: unknown): string => (typeof routePath === 'string' ? `${baseUrl}${routePath}` : UNMATCHED_ROUTE);

/**
 * Counts and times every response by method, route pattern and status. The route is taken when
 * express matches it: by the time the response finishes, a router that passed an error on has
 * already put `req.baseUrl` back to its parent's. A middleware mounted by path (tRPC) is labelled by that path.
 */
export const httpMetrics =
  (operations: Pick<Operations, 'recordHttpRequest'>): RequestHandler =>
  (req, res, next) => {
    const started = performance.now();
    let route: string | undefined;
    let matched: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => matched,
      set(value: { path?: unknown } | undefined) {
        matched = value;
        route = routeLabel(req.baseUrl, value?.path);
      },
    });
    res.once('finish', () => {
      operations.recordHttpRequest({ method: req.method, route: route ?? (req.baseUrl || UNMATCHED_ROUTE), status: res.statusCode }, (performance.now() - started) / 1000);
    });
    next();
  };
