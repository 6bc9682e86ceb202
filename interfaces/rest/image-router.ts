import { createHash } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { imageFormatOf } from '../../application/url-signing/image-url.js';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { ImageQuery } from '../schemas/render-schemas.js';
import { ImagePath, isSignedImageQuery, SignedImageQuery } from '../schemas/url-signing-schemas.js';
import { apiKeyAuth } from './auth.js';
import { matchesIfNoneMatch } from './conditional-requests.js';
import { perClientSignedViewLimit } from './rate-limit.js';
import { contextOf, requestIdOf } from './request-context.js';

/** What a verified signed URL tells the route: the values it signed, and how long caches may keep the image. */
interface SignedImage {
  readonly values: readonly (readonly [string, string])[];
  readonly cacheControl: string;
}

/**
 * The longest a cache is told to keep a signed URL's image, however far off the URL's expiry: a
 * revoked signing key stops its images within this long. A cache revalidating after it gets a 304
 * from the render cache, which records nothing.
 */
const MAX_AGE_SECONDS = 60 * 60;

/**
 * A URL with the API key in it may stop working when the key is revoked or the organization turns
 * query keys off, so shared caches must not keep its image: browsers may, and revalidate it by ETag.
 */
const API_KEY_URL_CACHING = 'private, no-cache';

/** Set by the caller middleware for a signed URL; absent for the API key form. */
const signedImageOf = (res: Response): SignedImage | undefined => res.locals.signedImage as SignedImage | undefined;

/** The decoded pairs of the query string as sent, in order: what a signature covers. */
const rawQueryPairs = (req: Request): [string, string][] => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? [] : [...new URLSearchParams(req.originalUrl.slice(at + 1))];
};

/** A repeated name takes its last value, as the spec's form does. */
const valuesOf = (pairs: readonly (readonly [string, string])[]): Record<string, string> => Object.fromEntries(pairs);

/**
 * Who the image renders for: a signed URL's signing key (no API key anywhere in the request), or
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

/** One tag per stored file: a repeated render answered from the render cache has the same one. */
const etagOf = (storageKey: string): string => `"${createHash('sha256').update(storageKey).digest('base64url').slice(0, 32)}"`;

/**
 * The image URL form (spec: GET /img/{templateId}.jpg?field=value&apiKey=...), and its signed form
 * and .png/.webp as extensions of this service; served on the same host. Answers carry an ETag, and
 * If-None-Match with it gets 304 without the file: a cache revalidating costs a render-cache lookup
 * at most. A signed URL shows the same image to anyone, so its views answered from the render cache
 * record nothing: only its first render is a result (a URL with an API key records each view, as
 * any request of that key).
 */
export const imageRouter = (services: AppServices, rateLimited: RequestHandler): Router => {
  const router = Router();
  const signedViewsPerClient = perClientSignedViewLimit(services, (req) => isSignedImageQuery(rawQueryPairs(req)));
  router.get('/img/:file', signedViewsPerClient, imageCaller(services), rateLimited, async (req, res) => {
    const { templateId, extension } = parseInput(ImagePath, req.params.file, 'path');
    const signed = signedImageOf(res);
    const data = signed ? valuesOf(signed.values) : parseInput(ImageQuery, req.query, 'query');
    const answer = await services.renders.render(contextOf(res), { template: templateId, data, outputFormat: imageFormatOf(extension) }, signed ? 'unrecorded' : 'recorded');
    res.setHeader('x-request-id', answer.requestId);
    if (answer.cached) res.setHeader('x-cached', 'true');
    res.setHeader('Cache-Control', signed?.cacheControl ?? API_KEY_URL_CACHING);
    if (answer.storageKey) res.setHeader('ETag', etagOf(answer.storageKey));
    const ifNoneMatch = req.get('If-None-Match');
    if (answer.storageKey && ifNoneMatch !== undefined && matchesIfNoneMatch(ifNoneMatch, etagOf(answer.storageKey))) {
      res.status(304).end();
      return;
    }
    const file = await services.renders.fileOf(answer);
    res.type(file.contentType).send(file.content);
  });
  return router;
};
