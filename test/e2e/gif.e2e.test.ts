import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames, pixelAt, probeVideoFile } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';

/** outputFormat gif, this service's extension: an animated GIF of a canvas-html template, priced like video. */

const WIDTH = 320;
const HEIGHT = 180;
const BOX = 40;

let app: TestApp;
let workDir: string;

/** A red box on dark blue sliding from the left edge to the right one over the video, and a green bar that never moves. */
const slidingBox = (slideMs: number) => ({
  background: '#102040',
  components: [
    { id: 'bar', type: 'RECTANGLE', x: 0, y: 0, width: WIDTH, height: 20, fill: '#00cc44' },
    { id: 'box', type: 'RECTANGLE', x: 0, y: 70, width: BOX, height: BOX, fill: '#ff0000', animation: { keyframes: [{ offset: 0, duration: slideMs, to: { x: WIDTH - BOX } }] } },
  ],
});

const createTemplate = async (size: { width: number; height: number }, slideMs: number) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Gif', ...size, editor: 'canvas-html', outputFormat: 'gif', recordDuration: 2000, fps: 25 } });
  expect(created.status).toBe(200);
  const templateId = created.body.identifier as string;
  expect((await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { body: slidingBox(slideMs) })).status).toBe(200);
  return templateId;
};

const pollResult = async (requestId: string) => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const detail = await app.call('GET', `/api/v2/results/${requestId}`);
    if (detail.body.status !== 'pending') return detail.body;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(detail.body)}`);
    await sleep(200);
  }
};

const boxLeftOf = (frame: Buffer) => {
  for (let x = 0; x < WIDTH; x++) {
    const [red, green, blue] = pixelAt(frame, WIDTH, x, 90);
    if (red > 180 && green < 80 && blue < 80) return x;
  }
  return -1;
};

const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'gif-e2e-'));
});

afterAll(async () => {
  await app?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('POST /api/v2/render with outputFormat gif', () => {
  it('answers 202, then a looping GIF of every frame at its instant, its size, charged as video', async () => {
    const templateId = await createTemplate({ width: WIDTH, height: HEIGHT }, 2000);
    const before = await creditsUsed();
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, cache: false } });
    expect(accepted.status).toBe(202);
    expect(accepted.body.href).toMatch(/\.gif$/);
    const final = await pollResult(accepted.body.requestId);
    expect(final).toMatchObject({ status: 'done', format: 'gif', width: WIDTH, height: HEIGHT, credits: 20 });
    expect(await creditsUsed()).toBe(before + 20);

    const url = new URL(accepted.body.href);
    const response = await fetch(`${app.url}${url.pathname}${url.search}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/gif');
    const bytes = Buffer.from(await response.arrayBuffer());
    // GIF89a with the NETSCAPE2.0 extension: it loops.
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(bytes.includes(Buffer.from('NETSCAPE2.0'))).toBe(true);
    const file = path.join(workDir, 'slide.gif');
    await writeFile(file, bytes);
    const probed = await probeVideoFile(file);
    expect(probed).toMatchObject({ codec: 'gif', width: WIDTH, height: HEIGHT, frames: 50 });
    expect(probed.duration).toBeCloseTo(2, 1);

    // Frame i shows the instant i / 25 s, in the template's colours through the palette.
    const frames = await decodeVideoFrames(file, WIDTH, HEIGHT);
    expect(frames).toHaveLength(50);
    for (const index of [0, 12, 25, 49]) {
      const expected = ((index / 25) * 1000 * (WIDTH - BOX)) / 2000;
      expect(Math.abs(boxLeftOf(frames[index] ?? Buffer.alloc(0)) - expected), `frame ${index}`).toBeLessThanOrEqual(2);
      const [red, green, blue] = pixelAt(frames[index] ?? Buffer.alloc(0), WIDTH, 160, 10);
      expect(green > 150 && red < 60 && blue < 110, `bar in frame ${index}: ${red},${green},${blue}`).toBe(true);
    }
  });

  it('answers 400 naming the bound for a GIF frame larger than 1280 x 720, when the template is made and when a render asks for it', async () => {
    const tooLarge = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Big', width: 1920, height: 1080, editor: 'canvas-html', outputFormat: 'gif' } });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors.join('\n')).toMatch(/at most 921600 for a GIF frame/);

    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Big', width: 1920, height: 1080, editor: 'canvas-html', outputFormat: 'mp4' } });
    expect(created.status).toBe(200);
    const before = await creditsUsed();
    const refused = await app.call('POST', '/api/v2/render', { body: { template: created.body.identifier, outputFormat: 'gif', cache: false } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.join('\n')).toMatch(/at most 921600 for a GIF frame/);
    expect(await creditsUsed()).toBe(before);
  });

  it('answers 400 for a GIF of an html-editor template', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Html', width: WIDTH, height: HEIGHT, editor: 'html-editor' } });
    const refused = await app.call('POST', '/api/v2/render', { body: { template: created.body.identifier, outputFormat: 'gif' } });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/only available for canvas-html/);
  });
});
