import type { RequestHandler } from 'express';
import type { AnyOperation } from '../http/operation.js';

/** When the v1 render and requests list were deprecated (2026-01-01T00:00:00Z), as RFC 9745 writes it. */
const DEPRECATED_SINCE = `@${Date.UTC(2026, 0, 1) / 1000}`;

/**
 * RFC 9745 `Deprecation` and a `successor-version` link on every answer of a deprecated path,
 * errors and refused keys included, so clients learn of it whatever they sent.
 */
export const deprecationHeaders = (operations: readonly AnyOperation[]): RequestHandler => {
  const successors = new Map(operations.flatMap((operation) => (operation.deprecated ? [[operation.path, operation.deprecated.successor] as const] : [])));
  return (req, res, next) => {
    const successor = successors.get(req.path.replace(/\/$/, ''));
    if (successor) {
      res.setHeader('Deprecation', DEPRECATED_SINCE);
      res.setHeader('Link', `<${successor}>; rel="successor-version"`);
    }
    next();
  };
};
