import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { RequestContext } from '../../application/shared/request-context.js';
import type { AppServices } from '../http/app-services.js';
import type { Access, AnyOperation, RequestFacts, SignedImage } from '../http/operation.js';
import { parseInput } from '../http/parse-input.js';
import { contextIfAny } from './request-context.js';

/** OpenAPI's /a/{b}/c as express writes it, /a/:b/c. */
const expressPath = (operation: AnyOperation): string => operation.route ?? operation.path.replace(/\{(\w+)\}/g, ':$1');

const bodyOf = (operation: AnyOperation, req: Request): unknown => {
  if (operation.readBody) return operation.readBody(req);
  const schema = operation.input.body;
  if (!schema) return undefined;
  const body: unknown = req.body ?? (operation.input.bodyOptional ? {} : undefined);
  return operation.parseBody ? operation.parseBody(body) : parseInput(schema, body, 'body');
};

const factsOf = (req: Request, res: Response): RequestFacts => ({
  header: (name) => req.get(name),
  ...(res.locals.signedImage ? { signedImage: res.locals.signedImage as SignedImage } : {}),
});

/** Validates the request by the operation's schemas (path, then query, then body), calls its use case and answers. */
const handlerOf = (services: AppServices, operation: AnyOperation): RequestHandler => async (req, res) => {
  const path: unknown = operation.input.path ? parseInput(operation.input.path, req.params, 'path') : undefined;
  const query: unknown = operation.input.query ? parseInput(operation.input.query, req.query, 'query') : undefined;
  const input = { path, query, body: await bodyOf(operation, req) };
  const facts = factsOf(req, res);
  // A link-access operation has no caller: the link is its credential, and its use case asks for no context.
  const context = contextIfAny(res) as RequestContext;
  const result: unknown = await operation.call(services, context, input, facts);
  if (operation.send) return operation.send(res, result, { input, services, request: req, facts });
  if (result === undefined) return void res.status(200).end();
  res.status(operation.answer.status ?? 200).json(result);
};

/**
 * The express routes of the operation table, in its order (the hottest first). Callers with API
 * keys are authenticated where /api is mounted; other accesses bring their own middleware.
 */
export const operationRoutes = (
  services: AppServices,
  operations: readonly AnyOperation[],
  accessChecks: Readonly<Record<Exclude<Access, 'api-key'>, readonly RequestHandler[]>>,
): Router => {
  const router = Router();
  for (const operation of operations) {
    const access = operation.access ?? 'api-key';
    if (access === 'api-key' && !operation.path.startsWith('/api/')) throw new Error(`${operation.id}: an API-key operation must live under /api`);
    router[operation.method](expressPath(operation), ...(access === 'api-key' ? [] : accessChecks[access]), handlerOf(services, operation));
  }
  return router;
};
