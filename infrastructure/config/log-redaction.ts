/*
 * Secrets must never reach a log line: API keys, webhook and signing secrets. The root logger
 * censors these paths, and every child logger (the request lines of interfaces/rest/request-logging.ts included) inherits that.
 * Credentials inside request URLs are the HTTP edge's to redact (interfaces/http/redact-url.ts).
 */

export const REDACTION_CENSOR = '[redacted]';

/** Object paths pino censors wherever they appear in a log line. */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.apiKey',
  'req.query.api_key',
  'req.query.signature',
  'req.query.token',
  'res.headers["set-cookie"]',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.secret',
  '*.webhookSecret',
  '*.signingSecret',
  'apiKey',
  'secret',
  'webhookSecret',
];
