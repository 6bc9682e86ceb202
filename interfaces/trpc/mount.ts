import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Express } from 'express';
import type { AppServices } from '../http/app-services.js';
import { createAppRouter } from './app-router.js';

export const mountTrpc = (app: Express, services: AppServices): void => {
  app.use(
    '/trpc',
    createExpressMiddleware({
      router: createAppRouter(services),
      createContext: async ({ req }) => {
        const key = req.header('x-api-key');
        return {
          caller: key ? await services.accounts.authenticate(key) : null,
          correlationId: String(req.id),
        };
      },
      onError: ({ error, req }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
      },
    }),
  );
};
