import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import { errorBody } from '../http/error-mapping.js';

/**
 * The studio's own scripts and styles only, and no inline script: a template's HTML never runs in
 * it (previews are images from the API), and a script that got in could not send a key elsewhere.
 * Previews arrive as blob: images; result files are same-origin links.
 */
export const STUDIO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built studio (studio/dist, written by setup.sh) at /studio, before and apart from the
 * API key check: the page holds no data, and asks for a key it then sends to the API itself. Any
 * path under /studio without a file of its own is the page, so a reload keeps its place.
 */
export const studioRouter = (distDir: string): Router => {
  const router = Router();
  const index = path.join(distDir, 'index.html');
  router.use('/studio', (_req, res, next) => {
    res.setHeader('content-security-policy', STUDIO_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    if (existsSync(index)) return next();
    res.status(503).json(errorBody(503, 'The studio is not built', ['run `npm run studio:build` (setup.sh does it for npm start)']));
  });
  router.get('/studio', (req, res, next) => (req.originalUrl.startsWith('/studio/') ? next() : res.redirect(301, '/studio/')));
  // Hashed asset names change with their content: they may be cached for good; the page may not.
  router.use('/studio/assets', express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d' }));
  router.use('/studio/assets', (_req, res) => void res.status(404).json(errorBody(404, 'Not found', ['no such studio asset'])));
  router.get('/studio/{*rest}', (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return router;
};
