import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStream } from '../../domain/renders/render-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames, pixelAt, probeVideoFile } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';
import { creditEventsOf } from '../support/credit-events.js';

let app: TestApp;
let workDir: string;
let receiver: Server;
let receiverUrl: string;
const webhookPosts: unknown[] = [];

const WIDTH = 320;
const HEIGHT = 180;
const BOX = 40;

/**
 * A red box on black sliding linearly from the left edge to the right one over `slideMs`: where
 * it is in a frame tells which instant the frame shows.
 */
const slidingBox = (slideMs: number) => ({
  background: '#000000',
  components: [
    {
      id: 'box',
      type: 'RECTANGLE',
      x: 0,
      y: 70,
      width: BOX,
      height: BOX,
      fill: '#ff0000',
      animation: { keyframes: [{ offset: 0, duration: slideMs, to: { x: WIDTH - BOX } }] },
    },
  ],
});

const createVideoTemplate = async (options: { key?: string; recordDuration?: number; fps?: number; slideMs?: number } = {}) => {
  const created = await app.call('POST', '/api/v2/my-templates', {
    key: options.key,
    body: { name: 'Slide', width: WIDTH, height: HEIGHT, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: options.recordDuration ?? 2000, fps: options.fps ?? 25 },
  });
  expect(created.status).toBe(200);
  const templateId = created.body.identifier as string;
  const put = await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { key: options.key, body: slidingBox(options.slideMs ?? 2000) });
  expect(put.status).toBe(200);
  return templateId;
};

/** Polls the result as a client does until it is no longer pending; every answer on the way is kept. */
const pollResult = async (requestId: string, key?: string, timeoutMs = 120_000) => {
  const seen: Record<string, any>[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await app.call('GET', `/api/v2/results/${requestId}`, { key });
    expect(detail.status).toBe(200);
    seen.push(detail.body);
    if (detail.body.status !== 'pending') return { final: detail.body, seen };
    if (Date.now() > deadline) throw new Error(`still pending after ${timeoutMs} ms: ${JSON.stringify(detail.body)}`);
    await sleep(200);
  }
};

const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

const saved = async (bytes: Buffer, name: string) => {
  const file = path.join(workDir, name);
  await writeFile(file, bytes);
  return file;
};

/** Left edge of the red box, on its row. */
const boxLeftOf = (frame: Buffer) => {
  for (let x = 0; x < WIDTH; x++) {
    const [red, green] = pixelAt(frame, WIDTH, x, 90);
    if (red > 150 && green < 90) return x;
  }
  return -1;
};

const creditsUsed = async (key?: string) => (await app.call('GET', '/api/v1/usage', { key })).body.credits.used as number;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      webhookPosts.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // The webhook receiver listens on loopback, which is private unless allowed.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'video-e2e-'));
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('POST /api/v2/render with a video format', () => {
  it.each([
    ['mp4', 'video/mp4', 'h264'],
    ['webm', 'video/webm', 'vp9'],
  ])('answers 202 pending, then the result is done with a %s of every frame at its instant', async (format, contentType, codec) => {
    // The request's duration and fps override the template's (3 s at 30 fps).
    const templateId = await createVideoTemplate({ recordDuration: 3000, fps: 30, slideMs: 2000 });
    const before = await creditsUsed();
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: format, duration: 2000, fps: 25, cache: false } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ requestId: expect.any(String), href: expect.stringContaining(`${accepted.body.requestId}/`), status: 'pending' });
    expect(accepted.body.href).toMatch(new RegExp(`\\.${format}$`));
    // Not there yet: the file appears at href once the render is done.
    expect((await download(accepted.body.href)).status).toBe(404);

    const { final } = await pollResult(accepted.body.requestId);
    expect(final).toMatchObject({ identifier: accepted.body.requestId, status: 'done', format, width: WIDTH, height: HEIGHT, credits: 20 });
    expect(final).not.toHaveProperty('progress');
    expect(await creditsUsed()).toBe(before + 20);

    const file = await download(accepted.body.href);
    expect(file.status).toBe(200);
    expect(file.type).toBe(contentType);
    const local = await saved(file.bytes, `slide.${format}`);
    const probed = await probeVideoFile(local);
    expect(probed).toMatchObject({ codec, pixelFormat: 'yuv420p', width: WIDTH, height: HEIGHT, frames: 50 });
    expect(probed.duration).toBeCloseTo(2, 1);

    // Frame i shows the instant i / 25 s: the box has slid i / 50 of the way.
    const frames = await decodeVideoFrames(local, WIDTH, HEIGHT);
    expect(frames).toHaveLength(50);
    for (const index of [0, 12, 25, 49]) {
      const expected = ((index / 25) * 1000 * (WIDTH - BOX)) / 2000;
      expect(Math.abs(boxLeftOf(frames[index] ?? Buffer.alloc(0)) - expected), `frame ${index}`).toBeLessThanOrEqual(2);
    }
  });

  it("takes the template's recordDuration and fps when the request names none", async () => {
    const templateId = await createVideoTemplate({ recordDuration: 1000, fps: 24, slideMs: 1000 });
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, cache: false } });
    expect(accepted.status).toBe(202);
    const { final } = await pollResult(accepted.body.requestId);
    expect(final).toMatchObject({ status: 'done', format: 'mp4', credits: 10 });
    const probed = await probeVideoFile(await saved((await download(final.href)).bytes, 'defaults.mp4'));
    expect(probed).toMatchObject({ codec: 'h264', frames: 24 });
    expect(probed.duration).toBeCloseTo(1, 1);
  });

  it('shows the progress of a pending video, never going back, and records it on the render stream', async () => {
    const templateId = await createVideoTemplate({ slideMs: 8000 });
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'webm', duration: 8000, fps: 30, cache: false } });
    const { final, seen } = await pollResult(accepted.body.requestId);
    expect(final.status).toBe('done');
    const pending = seen.filter((detail) => detail.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    for (const detail of pending) expect(detail.progress).toEqual({ framesDone: expect.any(Number), framesTotal: 240 });
    const done = pending.map((detail) => detail.progress.framesDone as number);
    expect(done).toEqual([...done].sort((a, b) => a - b));

    const events = await app.runtime.eventStore.readStream(renderStream(accepted.body.requestId));
    const progress = events.filter((event) => event.type === 'RenderProgressed').map((event) => event.data as { framesDone: number; framesTotal: number });
    // A tenth of the way at a time: a handful of events, not one per frame, always ahead of the last.
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress.length).toBeLessThanOrEqual(10);
    expect(progress.every((entry, index) => entry.framesTotal === 240 && (index === 0 || entry.framesDone > (progress[index - 1]?.framesDone ?? 0)))).toBe(true);
    expect(events.map((event) => event.type).filter((type) => type !== 'RenderProgressed')).toEqual(['RenderRequested', 'RenderCompleted']);
  });

  it('posts the finished video to the webhook as image renders do', async () => {
    const templateId = await createVideoTemplate({ recordDuration: 1000 });
    const body = { template: templateId, outputFormat: 'webm', cache: false, webhookUrl: receiverUrl };
    const accepted = await app.call('POST', '/api/v2/render', { body });
    expect(accepted.status).toBe(202);
    expect((await pollResult(accepted.body.requestId)).final.status).toBe('done');
    await expect.poll(() => webhookPosts.filter((post) => (post as { requestId: string }).requestId === accepted.body.requestId), { timeout: 30_000 }).toEqual([
      expect.objectContaining({ requestId: accepted.body.requestId, href: accepted.body.href, request: body, status: 'done' }),
    ]);
  });

  it('answers an identical video request from the cache with 202 done, for free', async () => {
    const templateId = await createVideoTemplate({ recordDuration: 1000 });
    const first = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'webm' } });
    expect((await pollResult(first.body.requestId)).final.status).toBe('done');
    const before = await creditsUsed();
    const second = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'webm' } });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ status: 'done', cached: true });
    expect(await creditsUsed()).toBe(before);
    expect((await download(second.body.href)).bytes.equals((await download(first.body.href)).bytes)).toBe(true);
  });

  it('answers 402 before any work when the credits do not cover every started second', async () => {
    const orgId = await app.runtime.services.accounts.openOrganization({ name: 'short', credits: 25 });
    const { key } = await app.runtime.services.accounts.issueApiKey(orgId, { label: 'short' });
    const templateId = await createVideoTemplate({ key });
    // 2.001 s start three seconds: 30 credits.
    const refused = await app.call('POST', '/api/v2/render', { key, body: { template: templateId, outputFormat: 'mp4', duration: 2001 } });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ status: 402, errors: ['this render costs 30 credits; 25 left'] });
    expect(await creditsUsed(key)).toBe(0);
    expect((await app.call('GET', '/api/v2/results', { key })).body.totalElements).toBe(0);
    expect(await creditEventsOf(app.runtime.eventStore, orgId)).toEqual([]);
  });

  it.each([
    [{ outputFormat: 'mp4', duration: 999 }, /duration/],
    [{ outputFormat: 'mp4', duration: 30001 }, /duration/],
    [{ outputFormat: 'webm', fps: 60 }, /fps/],
    [{ outputFormat: 'png', duration: 2000 }, /video renders only/],
  ])('answers 400 for %j', async (body, pattern) => {
    const templateId = await createVideoTemplate();
    const response = await app.call('POST', '/api/v2/render', { body: { template: templateId, ...body } });
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(pattern);
  });

  it('answers 400 for a video of an html-editor template', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Html', width: 100, height: 100, editor: 'html-editor' } });
    const response = await app.call('POST', '/api/v2/render', { body: { template: created.body.identifier, outputFormat: 'webm' } });
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(/canvas-html/);
  });
});
