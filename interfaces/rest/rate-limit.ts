import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { rateLimitKey, type AppServices } from '../http/app-services.js';
import { errorBody } from '../http/error-mapping.js';
import { contextOf } from './request-context.js';

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
