import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Logger } from 'pino';
import { DomainError, retryAfterSecondsOf } from '../../domain/shared/errors.js';
import type { AppServices } from '../http/app-services.js';
import { errorBody, knownError, toErrorBody } from '../http/error-mapping.js';
import { findBadInput, findBadPath } from '../http/input-guard.js';
import { bearerAsApiKey, mcpEndpoint } from '../mcp/mcp-route.js';
import { MAX_TRPC_BATCH, mountTrpc } from '../trpc/mount.js';
import { accountRouter } from './account-router.js';
import { apiKeyAuth, optionalApiKeyAuth } from './auth.js';
import { perCallRateLimit, perKeyRateLimit } from './rate-limit.js';
import { useRequestLogging } from './request-logging.js';
import { auditRouter } from './audit-router.js';
import { batchesRouter, batchJsonBody } from './batches-router.js';
import { filesRouter } from './files-router.js';
import { httpMetrics } from './http-metrics.js';
import { httpTracing } from './http-tracing.js';
import { openApiDocument } from './openapi.js';
import { operationsRouter } from './operations-router.js';
import { imageRouter } from './image-router.js';
import { renderRouter } from './render-router.js';
import { resultsRouter } from './results-router.js';
import { studioRouter } from './studio-route.js';
import { templatesRouter } from './templates-router.js';
import { uploadsRouter } from './uploads-router.js';
import { urlSigningRouter } from './url-signing-router.js';
import { deprecationHeaders, v1Router } from './v1-router.js';

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
  // Result hrefs are handed to people and browsers without the API key: the link is the credential.
  app.use(filesRouter(services));
  if (studioDir) app.use(studioRouter(studioDir));
  app.use(imageRouter(services, limited));
  app.use(deprecationHeaders());
  app.use('/mcp', bearerAsApiKey, apiKeyAuth(services), limited, mcpEndpoint(services));
  // Renders first: the hottest route (every cache hit) is matched before the other routers' routes are tried.
  app.use('/api', apiKeyAuth(services), limited, renderRouter(services), templatesRouter(services), batchesRouter(services), resultsRouter(services), accountRouter(services), uploadsRouter(services), urlSigningRouter(services), v1Router(services), auditRouter(services));

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
