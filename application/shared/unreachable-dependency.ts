/**
 * A backing service (PostgreSQL, S3, Temporal) that refused, dropped or did not answer a connection or
 * a query in time: Node's socket codes, PostgreSQL's connection-class states (08xxx, shutting down:
 * 57P01-57P03) and the pg driver's own timeouts, anywhere in the cause chain.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly/i;

export const isUnreachableDependency = (error: unknown, depth = 0): boolean => {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  return [cause, ...(Array.isArray(errors) ? errors : [])].some((inner) => isUnreachableDependency(inner, depth + 1));
};
