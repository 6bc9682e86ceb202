import type { RequestHandler } from 'express';
import { DomainError } from '../../domain/shared/errors.js';
import type { AppServices } from '../http/app-services.js';
import { requestIdOf } from './request-context.js';

const forbidden = (message: string) => new DomainError('forbidden', message, [message]);

/**
 * Reads the key from `x-api-key`, or from `apiKey` in the query where the spec allows it (GET /img)
 * and the key's organization has not turned that off.
 */
export const apiKeyAuth = (services: AppServices, options: { allowQueryKey?: boolean } = {}): RequestHandler =>
  async (req, res, next) => {
    const header = req.header('x-api-key');
    const query = options.allowQueryKey && typeof req.query.apiKey === 'string' ? req.query.apiKey : undefined;
    const key = header ?? query;
    if (!key) throw forbidden('Missing API key: send it in the x-api-key header');
    const caller = await services.accounts.authenticate(key);
    if (!caller) throw forbidden('Invalid API key');
    const context = { caller, correlationId: requestIdOf(req) };
    if (header === undefined) await services.settings.assertApiKeyInQueryAllowed(context);
    // The request's line names the organization and key (request-logging.ts).
    res.locals.context = context;
    next();
  };

/**
 * The caller of a request whose key is optional at this layer (tRPC: each procedure refuses a
 * caller without one, in its own error shape): a valid `x-api-key` sets the context, anything else
 * leaves it unset.
 */
export const optionalApiKeyAuth = (services: AppServices): RequestHandler =>
  async (req, res, next) => {
    const key = req.header('x-api-key');
    const caller = key ? await services.accounts.authenticate(key) : null;
    if (caller) res.locals.context = { caller, correlationId: requestIdOf(req) };
    next();
  };
