import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDIO_CSP, studioRouter } from '../../interfaces/rest/studio-route.js';

let dir: string;
const serve = async (distDir: string) => {
  const app = express().use(studioRouter(distDir));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studio-route-'));
  await mkdir(path.join(dir, 'dist', 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'dist', 'index.html'), '<!doctype html><title>studio</title>');
  await writeFile(path.join(dir, 'dist', 'assets', 'index-abc.js'), 'console.log(1)');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the /studio route', () => {
  it('serves the page with its CSP for any path under /studio, and hashed assets for good', async () => {
    const server = await serve(path.join(dir, 'dist'));
    try {
      const page = await fetch(`${server.url}/studio/templates/x`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>studio</title>');
      expect(page.headers.get('content-security-policy')).toBe(STUDIO_CSP);
      expect(page.headers.get('cache-control')).toBe('no-cache');

      const redirect = await fetch(`${server.url}/studio`, { redirect: 'manual' });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get('location')).toBe('/studio/');

      const asset = await fetch(`${server.url}/studio/assets/index-abc.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');

      const missing = await fetch(`${server.url}/studio/assets/nope.js`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ status: 404, msg: 'Not found' });
    } finally {
      await server.close();
    }
  });

  it('says in the error shape how to build the studio when it has not been built', async () => {
    const server = await serve(path.join(dir, 'nowhere'));
    try {
      const response = await fetch(`${server.url}/studio/`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ status: 503, msg: 'The studio is not built' });
    } finally {
      await server.close();
    }
  });
});
