import type { Request, RequestHandler } from 'express';
import type { AppServices } from '../http/app-services.js';
import type { SignedImage } from '../http/operation.js';
import { parseInput } from '../http/parse-input.js';
import { ImagePath, isSignedImageQuery, SignedImageQuery } from '../schemas/url-signing-schemas.js';
import { apiKeyAuth } from './auth.js';
import { perClientSignedViewLimit } from './rate-limit.js';
import { requestIdOf } from './request-context.js';

/**
 * The longest a cache is told to keep a signed URL's image, however far off the URL's expiry: a
 * revoked signing key stops its images within this long. A cache revalidating after it gets a 304
 * from the render cache, which records nothing.
 */
const MAX_AGE_SECONDS = 60 * 60;

/** The decoded pairs of the query string as sent, in order: what a signature covers. */
const rawQueryPairs = (req: Request): [string, string][] => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? [] : [...new URLSearchParams(req.originalUrl.slice(at + 1))];
};

/**
 * Who an image URL renders for: a signed URL's signing key (no API key anywhere in the request), or
 * an API key from the header or the query as the spec has it. A URL that fails its signature is a
 * 403 here, before anything is rendered, recorded or charged.
 */
const imageCaller = (services: AppServices): RequestHandler => {
  const byApiKey = apiKeyAuth(services, { allowQueryKey: true });
  return async (req, res, next) => {
    const pairs = rawQueryPairs(req);
    if (!isSignedImageQuery(pairs)) return byApiKey(req, res, next);
    const { templateId, extension } = parseInput(ImagePath, req.params.file, 'path');
    const query = parseInput(SignedImageQuery, pairs, 'query');
    const { caller, secondsLeft } = await services.urlSigning.verify({ templateId, extension, ...query });
    res.locals.context = { caller, correlationId: requestIdOf(req) };
    // A signed URL shows the same image to anyone until it expires: a CDN or a crawler may keep it that long.
    res.locals.signedImage = { values: query.values, cacheControl: `public, max-age=${Math.min(secondsLeft, MAX_AGE_SECONDS)}` } satisfies SignedImage;
    req.log.info({ orgId: caller.orgId, urlSigningKeyId: caller.actor }, 'signed image URL verified');
    next();
  };
};

/** GET /img's checks, in order: signed views per client address, the caller (signature or API key), the per-key limit. */
export const imageUrlAccess = (services: AppServices, rateLimited: RequestHandler): RequestHandler[] => [
  perClientSignedViewLimit(services, (req) => isSignedImageQuery(rawQueryPairs(req))),
  imageCaller(services),
  rateLimited,
];
