import express, { Router, type Express } from 'express';
import type { Operations } from '../http/app-services.js';
import { errorBody } from '../http/error-mapping.js';
import { httpMetrics } from './http-metrics.js';

/** /livez, /readyz and /metrics: for orchestrators and Prometheus, without an API key. */
export const operationsRouter = (operations: Operations): Router => {
  const router = Router();
  // Answering at all shows the process and its event loop are up; dependencies are /readyz's concern.
  router.get('/livez', (_req, res) => {
    res.json({ ok: true });
  });
  router.get('/readyz', async (req, res) => {
    const report = await operations.readiness();
    if (report.ok) return void res.json(report);
    const failed = Object.entries(report.checks).filter(([, check]) => !check.ok);
    const errors = failed.map(([name, check]) => `${name}: ${check.detail ?? 'failed'}`);
    // The log says which dependency failed, not only that a probe got a 503 (processes without a request logger have none).
    (req as { log?: { warn(fields: object, message: string): void } }).log?.warn({ errors }, 'not ready');
    res.status(503).json(errorBody(503, 'Not ready', errors));
  });
  router.get('/metrics', async (_req, res) => {
    const { contentType, body } = await operations.scrapeMetrics();
    res.type(contentType).send(body);
  });
  return router;
};

/** All a worker alone serves over HTTP: its operations endpoints, with its requests to them counted alike. */
export const createOperationsApp = (operations: Operations): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.use(httpMetrics(operations), operationsRouter(operations));
  app.use((req, res) => {
    res.status(404).json(errorBody(404, 'Not found', [`No route for ${req.method} ${req.path}`]));
  });
  return app;
};
