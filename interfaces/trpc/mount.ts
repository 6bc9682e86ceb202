import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Express, RequestHandler } from 'express';
import type { AppServices } from '../http/app-services.js';
import { contextIfAny } from '../rest/request-context.js';
import { createAppRouter } from './app-router.js';

/** The most procedure calls one tRPC request may batch; a larger batch is a 400 and runs none of them. */
export const MAX_TRPC_BATCH = 50;

/**
 * tRPC behind `before`: the caller's key, read once, and the per-key rate limit that counts every
 * call of a batch. Procedures refuse calls that came without a valid key.
 */
export const mountTrpc = (app: Express, services: AppServices, before: readonly RequestHandler[]): void => {
  app.use(
    '/trpc',
    ...before,
    createExpressMiddleware({
      router: createAppRouter(services),
      maxBatchSize: MAX_TRPC_BATCH,
      createContext: ({ req, res }) => ({ caller: contextIfAny(res)?.caller ?? null, correlationId: String(req.id) }),
      onError: ({ error, req }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
      },
    }),
  );
};
