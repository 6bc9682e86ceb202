import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { RequestHandler } from 'express';
import { followMatchedRoute } from './matched-route.js';

/**
 * A server span per request, continuing the caller's trace when it sends `traceparent`; workflow
 * starts, and through Temporal's headers the workflow and its activities, become its children.
 * Named by method and route pattern, never the URL: paths and queries can hold keys and signatures.
 * Without a registered tracer provider (tracing off) the span is a no-op.
 */
export const httpTracing = (): RequestHandler => (req, res, next) => {
  const parent = propagation.extract(context.active(), req.headers);
  const span = trace.getTracer('render-service').startSpan(req.method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method } }, parent);
  const route = followMatchedRoute(req);
  res.once('close', () => {
    span.updateName(`${req.method} ${route()}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route());
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'client closed the connection before the response ended' });
    span.end();
  });
  const active = trace.setSpan(parent, span);
  // The body parser and later handlers resume from the request's stream events, which run in the
  // socket's context, not this one: bound to the span's context, they keep it.
  context.bind(active, req);
  context.bind(active, res);
  context.with(active, next);
};
