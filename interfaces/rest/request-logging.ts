import { randomUUID } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import { stdSerializers, type Level, type Logger } from 'pino';
import { redactRequest } from '../http/redact-url.js';
import { contextIfAny } from './request-context.js';

declare module 'http' {
  interface IncomingMessage {
    /** The request's id: the caller's `x-request-id` when it is a plain token, else a new one. */
    id: string;
    /** Bound to the request's id; the handlers' logger. */
    log: Logger;
  }
}

/** A caller's own request id is echoed back when it is a plain token of reasonable length. */
const PLAIN_REQUEST_ID = /^[\w.-]{1,100}$/;

/** The request's logger, once something asked for it. */
const REQUEST_LOG = Symbol('request log');
type LoggedRequest = Express['request'] & { [REQUEST_LOG]?: Logger };

const levelOf = (statusCode: number, aborted: boolean): Level => (aborted || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info');

/**
 * Each request gets an id (echoed as `x-request-id`), a logger bound to it (`req.log`), and one line
 * when its answer is finished or abandoned: info, warn for a 4xx, error for a 5xx or an answer the
 * client did not wait for; with the request (credentials in its URL redacted here, secret headers
 * censored by the root logger), the organization and key that made it, the answer's status and
 * headers, and its time in ms.
 *
 * pino-http did the same and bound the whole serialized, redacted request into a child logger for
 * every request, whether or not its line would be written: a visible share of the service's CPU
 * per cache hit. Here the request is serialized only for a line that is written, and the request's
 * child logger is made only when something logs through it: `req.log` is an accessor on the app's
 * request prototype, defined once, since making the child cost CPU on every hit whether or not a
 * line was written.
 */
export const useRequestLogging = (app: Express, logger: Logger): void => {
  const logOf = (req: LoggedRequest): Logger => (req[REQUEST_LOG] ??= logger.child({ reqId: req.id }));
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: LoggedRequest) {
      return logOf(this);
    },
    set(this: LoggedRequest, log: Logger) {
      this[REQUEST_LOG] = log;
    },
  });

  const logRequests: RequestHandler = (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && PLAIN_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    const started = performance.now();

    const ended = (aborted: boolean) => () => {
      res.off('finish', finished);
      res.off('close', closed);
      const level = levelOf(res.statusCode, aborted);
      if (!logger.isLevelEnabled(level)) return;
      const caller = contextIfAny(res)?.caller;
      const line = {
        req: redactRequest(stdSerializers.req(req)),
        ...(caller ? { orgId: caller.orgId, keyId: caller.actor } : {}),
        res: stdSerializers.res(res),
        responseTime: Math.round(performance.now() - started),
      };
      logOf(req)[level](line, aborted ? 'request aborted' : 'request completed');
    };
    const finished = ended(false);
    const closed = ended(true);
    res.on('finish', finished);
    res.on('close', closed);
    next();
  };
  app.use(logRequests);
};
