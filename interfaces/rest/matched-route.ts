import type { Request } from 'express';

/** Requests no route answered (404s, tRPC, middleware refusals) share one label whatever their path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The label of a request: the router's mount path and the route's pattern, never the raw URL. */
export const routeLabel = (baseUrl: string, routePath: unknown): string => (typeof routePath === 'string' ? `${baseUrl}${routePath}` : UNMATCHED_ROUTE);

const followed = new WeakMap<Request, () => string>();

/**
 * Follows which route express matches, for metrics and traces that name the route's pattern. The
 * route is taken when express matches it: by the time the response finishes, a router that passed
 * an error on has already put `req.baseUrl` back to its parent's. A middleware mounted by path
 * (tRPC) is labelled by that path. Every caller on one request shares the one hook.
 */
export const followMatchedRoute = (req: Request): (() => string) => {
  const known = followed.get(req);
  if (known) return known;
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
  const label = () => route ?? (req.baseUrl || UNMATCHED_ROUTE);
  followed.set(req, label);
  return label;
};
