import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { rateLimitKey, type AppServices } from '../http/app-services.js';
import { errorBody } from '../http/error-mapping.js';
import { contextIfAny, contextOf } from './request-context.js';

/**
 * Requests per API key and window, as many as the caller's plan allows, counted in the shared store
 * so that every API process sees the same count. Past the limit: 429 in the spec's error shape, with
 * Retry-After and the IETF RateLimit and RateLimit-Policy headers on every answer. Mounted after the
 * key is authenticated: a request without a valid key is refused before it counts.
 */
export const perKeyRateLimit = ({ rateLimits }: AppServices): RequestHandler => {
  const windowSeconds = Math.round(rateLimits.windowMs / 1000);
  return rateLimit({
    windowMs: rateLimits.windowMs,
    limit: (_req, res) => rateLimits.limitFor(contextOf(res).caller.orgId),
    // A limit of 0 means the plan has none.
    skip: async (_req, res) => (await rateLimits.limitFor(contextOf(res).caller.orgId)) === 0,
    keyGenerator: (_req, res) => rateLimitKey(contextOf(res).caller.orgId, contextOf(res).caller.actor),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: `per-key-${windowSeconds}s`,
    store: rateLimits.store,
    handler: (_req, res, next) => {
      rateLimits
        .limitFor(contextOf(res).caller.orgId)
        .then((limit) => {
          const retryAfter = res.getHeader('Retry-After') ?? windowSeconds;
          res.status(429).json(errorBody(429, 'Too many requests', [`this API key may make ${limit} requests per ${windowSeconds} s; retry after ${String(retryAfter)} s`]));
        })
        .catch(next);
    },
  });
};

/** How many procedure calls a tRPC request makes: the paths of a batch (`?batch=1`) are comma-separated. */
export const trpcCallsOf = (req: Request): number => (req.query.batch === '1' ? req.path.split(',').length : 1);

/**
 * tRPC under the same per-key limit as REST, each call of a batch counted as one request: the calls
 * after the first are counted straight into the shared store, and the limiter counts the first and
 * answers 429 once the key's total is past its limit. A batch over `maxBatch` counts once (tRPC
 * refuses it whole); calls without a valid key are counted by nothing: their procedures refuse them.
 */
export const perCallRateLimit = ({ rateLimits }: AppServices, limited: RequestHandler, maxBatch: number): RequestHandler =>
  async (req, res, next) => {
    const context = contextIfAny(res);
    if (!context) return next();
    const { orgId, actor } = context.caller;
    const calls = trpcCallsOf(req);
    if (calls <= maxBatch && (await rateLimits.limitFor(orgId)) > 0) {
      for (let call = 1; call < calls; call++) await rateLimits.store.increment(rateLimitKey(orgId, actor));
    }
    limited(req, res, next);
  };

/**
 * Views of signed image URLs per client address (other requests pass uncounted): they carry no API
 * key, so the per-key limit bounds each signing key, not a client that cycles through URLs or keys.
 * Counted in this process's memory.
 */
export const perClientSignedViewLimit = ({ rateLimits }: AppServices, isSignedView: (req: Request) => boolean): RequestHandler => {
  const windowSeconds = Math.round(rateLimits.windowMs / 1000);
  const limit = rateLimits.signedViewsPerClient;
  return rateLimit({
    windowMs: rateLimits.windowMs,
    limit,
    skip: (req) => limit === 0 || !isSignedView(req),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: `signed-views-${windowSeconds}s`,
    handler: (_req, res) => {
      const retryAfter = res.getHeader('Retry-After') ?? windowSeconds;
      res.status(429).json(errorBody(429, 'Too many requests', [`this client may view ${limit} signed image URLs per ${windowSeconds} s; retry after ${String(retryAfter)} s`]));
    },
  });
};
