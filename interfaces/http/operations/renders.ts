import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { z } from 'zod';
import type { RenderAnswer } from '../../../application/renders/request-render/render-input.js';
import { v1RenderInput } from '../../../application/renders/v1-render.js';
import { imageFormatOf } from '../../../application/url-signing/image-url.js';
import { isAsynchronousFormat, OUTPUT_FORMATS, outputContentType } from '../../../domain/renders/output-formats.js';
import { ImageQuery, RenderBody, RenderQuery, RenderResponse } from '../../schemas/render-schemas.js';
import { ImagePath } from '../../schemas/url-signing-schemas.js';
import { RequestRecord, RequestsQuery, V1RenderBody, V1RenderQuery, V1RenderResponse } from '../../schemas/v1-schemas.js';
import type { AppServices } from '../app-services.js';
import { matchesIfNoneMatch } from '../conditional-requests.js';
import { jsonContent, operation } from '../operation.js';

/** A render's JSON answer: the file's link, and whether it is still pending or came from the cache. */
export const renderJsonAnswer = ({ requestId, href, cached, status }: RenderAnswer) => ({
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

const sendFile = async (renders: AppServices['renders'], res: Response, answer: RenderAnswer) => {
  const file = await renders.fileOf(answer);
  res.setHeader('x-request-id', answer.requestId);
  if (answer.cached) res.setHeader('x-cached', 'true');
  res.type(file.contentType).send(file.content);
};

/** What output=image answers with: the file of any render the client waits for. */
const waitedForContentTypes = OUTPUT_FORMATS.filter((format) => !isAsynchronousFormat(format)).map(outputContentType);

export const render = operation({
  id: 'render',
  method: 'post',
  path: '/api/v2/render',
  tags: ['renders'],
  summary: 'Render a template',
  input: { query: RenderQuery, body: RenderBody },
  answer: { description: 'Images and PDFs: requestId and href (at once when a webhookUrl is given); with output=image the file itself', schema: RenderResponse, binary: waitedForContentTypes },
  document: {
    responses: {
      '202': { description: 'Videos (mp4, webm): accepted with status pending (done when answered from the cache); poll GET /api/v2/results/{identifier}', ...jsonContent(RenderResponse) },
    },
  },
  call: ({ renders }, context, { body }) => renders.render(context, body),
  send: (res, answer, { input, services }) => {
    // Video renders are asynchronous whether they start now or come from the cache (spec rule 5).
    if (answer.status) return sendJson(res, 202, renderJsonAnswer(answer));
    if (input.query.output === 'image' && answer.storageKey) return sendFile(services.renders, res, answer);
    sendJson(res, 200, renderJsonAnswer(answer));
  },
});

export const renderV1 = operation({
  id: 'renderV1',
  method: 'post',
  path: '/api/v1/render',
  tags: ['renders'],
  summary: 'Render a template (deprecated: use POST /api/v2/render)',
  deprecated: { successor: '/api/v2/render' },
  input: { query: V1RenderQuery, body: V1RenderBody },
  answer: { description: 'requestId and href', schema: V1RenderResponse },
  call: async ({ renders }, context, { query, body }) => {
    const { requestId, href } = await renders.render(context, v1RenderInput(body, { simpleArray: query.options === 'USE_SIMPLE_ARRAY' }));
    return { requestId, href };
  },
});

export const listRequestsV1 = operation({
  id: 'listRequestsV1',
  method: 'get',
  path: '/api/v1/requests',
  tags: ['results'],
  summary: 'List renders and captures, newest first (deprecated: use GET /api/v2/results)',
  deprecated: { successor: '/api/v2/results' },
  input: { query: RequestsQuery },
  answer: { description: 'Request records', schema: z.array(RequestRecord) },
  call: ({ requests }, context, { query }) => requests.list(context, query),
});

/**
 * A URL with the API key in it may stop working when the key is revoked or the organization turns
 * query keys off, so shared caches must not keep its image: browsers may, and revalidate it by ETag.
 */
const API_KEY_URL_CACHING = 'private, no-cache';

/** One tag per stored file: a repeated render answered from the render cache has the same one. */
const etagOf = (storageKey: string): string => `"${createHash('sha256').update(storageKey).digest('base64url').slice(0, 32)}"`;

/** A repeated name takes its last value, as the spec's form does. */
const valuesOf = (pairs: readonly (readonly [string, string])[]): Record<string, string> => Object.fromEntries(pairs);

/**
 * The image URL form (spec: GET /img/{templateId}.jpg?field=value&apiKey=...), and its signed form
 * and .png/.webp as extensions of this service; served on the same host. Answers carry an ETag, and
 * If-None-Match with it gets 304 without the file: a cache revalidating costs a render-cache lookup
 * at most. A signed URL shows the same image to anyone, so its views answered from the render cache
 * record nothing: only its first render is a result (a URL with an API key records each view, as
 * any request of that key).
 */
export const renderImageFromQuery = operation({
  id: 'renderImageFromQuery',
  method: 'get',
  path: '/img/{templateId}.jpg',
  route: '/img/:file',
  access: 'image-url',
  tags: ['renders', 'signed-urls'],
  summary: 'Render a template as an image from query values: with apiKey in the query, or signed (no API key)',
  description:
    'Every query pair but apiKey, expires, keyId and signature sets one template value: a merge field, or <componentId>.<property> of a canvas template. ' +
    'The spec form takes apiKey (refused with 403 when the organization turned apiKeyInQuery off, see /api/v2/account/settings). ' +
    'The signed form, an extension of this service, takes expires, keyId and signature instead: signature is the lowercase hex HMAC-SHA256, keyed with the ' +
    'URL-signing secret, of four lines joined by "\\n": the path (/img/<templateId>.<ext>, templateId RFC 3986-encoded), the other pairs RFC 3986-encoded as ' +
    'name=value, sorted by name then value and joined by "&", expires, keyId. An expired, tampered, unknown or revoked one, one that names a value twice or ' +
    'expires more than 366 days ahead is a 403 that records and charges nothing. A signed URL records its first render only: later views answered from the ' +
    'render cache record nothing. Views of signed URLs are limited per client address (429). ' +
    'The path may end in .png or .webp instead of .jpg (an extension of this service). Answers carry an ETag (If-None-Match with it gets 304) and ' +
    'Cache-Control: public, max-age up to an hour (or the expiry when sooner) for signed URLs, private, no-cache for apiKey ones.',
  input: { path: z.object({ file: ImagePath }), query: ImageQuery },
  answer: { description: 'The image', binary: [outputContentType('jpeg'), outputContentType('png'), outputContentType('webp')] },
  document: {
    requestParams: { path: z.object({ templateId: z.string() }) },
    parameters: [
      { in: 'query', name: 'apiKey', required: false, description: 'The spec form: the API key. Not with a signature', schema: { type: 'string' } },
      { in: 'query', name: 'expires', required: false, description: 'Signed form: unix seconds after which the URL answers 403', schema: { type: 'string', pattern: '^[1-9][0-9]{0,11}$' } },
      { in: 'query', name: 'keyId', required: false, description: 'Signed form: the identifier of the URL-signing key', schema: { type: 'string' } },
      { in: 'query', name: 'signature', required: false, description: 'Signed form: lowercase hex HMAC-SHA256 of the canonical form', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
      {
        in: 'query',
        name: 'values',
        description: 'Any other pairs: template values by name',
        style: 'form',
        explode: true,
        schema: { type: 'object', additionalProperties: { type: 'string' } },
      },
      { in: 'header', name: 'If-None-Match', required: false, description: 'An ETag of an earlier answer: 304 when the image is the same', schema: { type: 'string' } },
    ],
    security: [],
    responses: { '304': { description: 'Not modified: the image is the one the If-None-Match tag names' } },
  },
  call: ({ renders }, context, { path, query }, { signedImage }) => {
    const { templateId, extension } = path.file;
    const data = signedImage ? valuesOf(signedImage.values) : query;
    return renders.render(context, { template: templateId, data, outputFormat: imageFormatOf(extension) }, signedImage ? 'unrecorded' : 'recorded');
  },
  send: async (res, answer, { services, request, facts }) => {
    res.setHeader('x-request-id', answer.requestId);
    if (answer.cached) res.setHeader('x-cached', 'true');
    res.setHeader('Cache-Control', facts.signedImage?.cacheControl ?? API_KEY_URL_CACHING);
    if (answer.storageKey) res.setHeader('ETag', etagOf(answer.storageKey));
    const ifNoneMatch = request.get('If-None-Match');
    if (answer.storageKey && ifNoneMatch !== undefined && matchesIfNoneMatch(ifNoneMatch, etagOf(answer.storageKey))) {
      res.status(304).end();
      return;
    }
    const file = await services.renders.fileOf(answer);
    res.type(file.contentType).send(file.content);
  },
});
