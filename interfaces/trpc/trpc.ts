import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { Caller, RequestContext } from '../../application/shared/request-context.js';
import { DomainError } from '../../domain/shared/errors.js';
import { toErrorBody, type ErrorResponse } from '../http/error-mapping.js';

export interface TrpcContext {
  readonly caller: Caller | null;
  readonly correlationId: string;
}

const TRPC_CODES: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE',
};

const INTERNAL = 'Internal server error';

const bodyOf = (error: TRPCError, httpStatus: number): ErrorResponse => {
  if (error.cause instanceof DomainError) return toErrorBody(error.cause);
  if (error.cause instanceof ZodError) {
    const errors = error.cause.issues.map((issue) => `${['input', ...issue.path.map(String)].join('.')}: ${issue.message}`);
    return { msg: 'Invalid input', status: 400, errors };
  }
  return { msg: error.message, status: httpStatus, errors: [error.message] };
};

const t = initTRPC.context<TrpcContext>().create({
  // Never a stack in an answer: it names the service's files and is no use to a client.
  isDev: false,
  /** Clients get the REST error body too, under `data.body`. */
  errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, body: bodyOf(error, shape.data.httpStatus) } }),
});

export const router = t.router;

/** Domain errors keep their meaning over tRPC (same status); unexpected ones never leak their message. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const { cause, code } = result.error;
  if (cause instanceof DomainError) {
    throw new TRPCError({ code: TRPC_CODES[toErrorBody(cause).status] ?? 'INTERNAL_SERVER_ERROR', message: cause.message, cause });
  }
  if (code === 'INTERNAL_SERVER_ERROR') throw new TRPCError({ code, message: INTERNAL, cause: result.error });
  return result;
});

/** Same rule as REST: no valid key, no access. */
export const authedProcedure = t.procedure.use(mapErrors).use(({ ctx, next }) => {
  if (!ctx.caller) throw new TRPCError({ code: 'FORBIDDEN', message: 'Missing or invalid API key' });
  const context: RequestContext = { caller: ctx.caller, correlationId: ctx.correlationId };
  return next({ ctx: { ...ctx, context } });
});
