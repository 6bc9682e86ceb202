import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Logger } from 'pino';
import { DomainError, retryAfterSecondsOf } from '../../domain/shared/errors.js';
import type { AppServices } from '../http/app-services.js';
import { errorBody, knownError, toErrorBody } from '../http/error-mapping.js';
import { findBadInput, findBadPath } from '../http/input-guard.js';
import { ALL_OPERATIONS } from '../http/operations/all-operations.js';
import { bearerAsApiKey, mcpEndpoint } from '../mcp/mcp-route.js';
import { MAX_BATCH_CSV_BYTES } from '../schemas/batch-schemas.js';
import { MAX_TRPC_BATCH, mountTrpc } from '../trpc/mount.js';
import { apiKeyAuth, optionalApiKeyAuth } from './auth.js';
import { deprecationHeaders } from './deprecation-headers.js';
import { httpMetrics } from './http-metrics.js';
import { httpTracing } from './http-tracing.js';
import { imageUrlAccess } from './image-access.js';
import { openApiDocument } from './openapi.js';
import { operationRoutes } from './operation-routes.js';
import { operationsRouter } from './operations-router.js';
import { perCallRateLimit, perKeyRateLimit } from './rate-limit.js';
import { useRequestLogging } from './request-logging.js';
import { studioRouter } from './studio-route.js';

/** A JSON batch's rows may weigh as much as the largest CSV: more than the body limit of other requests. */
const batchJsonBody = express.json({ limit: MAX_BATCH_CSV_BYTES, strict: true });

export interface HttpAppOptions {
  readonly services: AppServices;
  readonly logger: Logger;
  /** Largest accepted JSON body, e.g. "2mb". */
  readonly bodyLimit: string;
  /** The built studio (studio/dist), served at /studio; no studio when absent. */
  readonly studioDir?: string;
  /** Proxies whose X-Forwarded-For names the client (rate limits per client address); none by default. */
  readonly trustProxyHops?: number;
}

/** body-parser marks its errors with `type`; these two are the client's fault. */
const bodyParserError = (error: unknown): DomainError | null => {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed') {
    return new DomainError('validation', 'Malformed JSON body', [`body: ${(error as Error).message}`]);
  }
  if (type === 'entity.too.large') {
    return new DomainError('payload_too_large', 'Request body too large', [`body: larger than ${(error as { limit?: number }).limit} bytes`]);
  }
  // Any other refusal of the request itself (an unsupported charset or Content-Encoding, a body that
  // is not the gzip it claims, a path that does not decode) is the client's fault, said in the spec's shape.
  const status = (error as { status?: unknown }).status;
  if (error instanceof URIError || (typeof status === 'number' && status >= 400 && status < 500)) {
    return new DomainError('validation', 'Malformed request', [`request: ${(error as Error).message}`]);
  }
  return null;
};

export const createHttpApp = ({ services, logger, bodyLimit, studioDir, trustProxyHops = 0 }: HttpAppOptions): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxyHops);
  app.set('query parser', 'extended');
  app.use(httpTracing());
  app.use(httpMetrics(services.operations));

  useRequestLogging(app, logger);
  const json = express.json({ limit: bodyLimit, strict: false });
  app.use((req, res, next) => (req.method === 'POST' && req.path === '/api/v2/batches' ? batchJsonBody(req, res, next) : json(req, res, next)));
  app.use((req, res, next) => {
    const problem = findBadPath(req.path) ?? findBadInput(req.query, 'query') ?? findBadInput(req.body, 'body');
    if (!problem) return next();
    res.status(400).json(errorBody(400, 'Invalid input', [problem]));
  });

  app.get('/healthz', async (_req, res) => {
    const report = await services.health();
    res.status(report.ok ? 200 : 503).json(report);
  });
  app.use(operationsRouter(services.operations));
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  // One limiter for every keyed route, REST and tRPC, so its counts are not split between instances.
  const limited = perKeyRateLimit(services);
  mountTrpc(app, services, [optionalApiKeyAuth(services), perCallRateLimit(services, limited, MAX_TRPC_BATCH)]);
  if (studioDir) app.use(studioRouter(studioDir));
  app.use(deprecationHeaders(ALL_OPERATIONS));
  app.use('/mcp', bearerAsApiKey, apiKeyAuth(services), limited, mcpEndpoint(services));
  app.use('/api', apiKeyAuth(services), limited);
  // Result hrefs are handed to people and browsers without the API key: the link is the credential.
  app.use(operationRoutes(services, ALL_OPERATIONS, { link: [], 'image-url': imageUrlAccess(services, limited) }));

  app.use((req, res) => {
    res.status(404).json(errorBody(404, 'Not found', [`No route for ${req.method} ${req.path}`]));
  });

  const handleError: ErrorRequestHandler = (error, req, res, _next) => {
    const known = knownError(bodyParserError(error) ?? error);
    const body = toErrorBody(known);
    if (body.status >= 500) req.log.error({ err: error }, 'request failed');
    if (res.headersSent) return;
    if (known instanceof DomainError && known.code === 'unavailable') res.setHeader('Retry-After', String(retryAfterSecondsOf(known)));
    res.status(body.status).json(body);
  };
  app.use(handleError);

  return app;
};
