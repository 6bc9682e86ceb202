import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeColourVideo } from '../support/colour-video.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decodeVideoFrames, pixelAt, probeVideoFile } from '../support/video-files.js';
import { sleep } from '../support/wait-for.js';

/*
 * A VIDEO component in a canvas-html video is posed at each frame's instant like every other
 * component: its source is decoded once and frame i of the video shows the source at i / fps,
 * however long the capture takes. The source here changes colour at known times, so the colour
 * inside the component's box tells which instant of the source a frame shows.
 */

let app: TestApp;
let workDir: string;
let sourceServer: Server;
let sourceUrl: string;
let sourceFetches = 0;

const WIDTH = 320;
const HEIGHT = 180;
const FPS = 25;
/** The component's box: x 60..260, y 40..140, on a black page. */
const CLIP = { x: 60, y: 40, width: 200, height: 100 };

type Colour = 'red' | 'lime' | 'blue' | 'black';

const colourAt = (frame: Buffer, x: number, y: number): Colour | string => {
  const [red, green, blue] = pixelAt(frame, WIDTH, x, y);
  const high = (value: number) => value > 180;
  const low = (value: number) => value < 70;
  if (high(red) && low(green) && low(blue)) return 'red';
  if (high(green) && low(red) && low(blue)) return 'lime';
  if (high(blue) && low(red) && low(green)) return 'blue';
  if (low(red) && low(green) && low(blue)) return 'black';
  return `rgb(${red},${green},${blue})`;
};

/** The colours at the box's centre and near its corners: the whole box shows the frame. */
const clipColoursOf = (frame: Buffer) => [
  colourAt(frame, CLIP.x + CLIP.width / 2, CLIP.y + CLIP.height / 2),
  colourAt(frame, CLIP.x + 5, CLIP.y + 5),
  colourAt(frame, CLIP.x + CLIP.width - 6, CLIP.y + CLIP.height - 6),
];

const createClipTemplate = async (src: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', {
    body: { name: 'Clip', width: WIDTH, height: HEIGHT, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 2000, fps: FPS },
  });
  expect(created.status).toBe(200);
  const templateId = created.body.identifier as string;
  const put = await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, {
    body: { background: '#000000', components: [{ id: 'clip', type: 'VIDEO', ...CLIP, src, objectFit: 'fill' }] },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return templateId;
};

const finished = async (requestId: string, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await app.call('GET', `/api/v2/results/${requestId}`);
    expect(detail.status).toBe(200);
    if (detail.body.status !== 'pending') return detail.body as Record<string, any>;
    if (Date.now() > deadline) throw new Error(`still pending after ${timeoutMs} ms`);
    await sleep(200);
  }
};

/** Renders the template as an mp4 (never from the cache) and decodes every frame of the result. */
const renderFrames = async (templateId: string, name: string) => {
  const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'mp4', duration: 2000, fps: FPS, cache: false } });
  expect(accepted.status).toBe(202);
  const result = await finished(accepted.body.requestId);
  expect(result, JSON.stringify(result)).toMatchObject({ status: 'done', width: WIDTH, height: HEIGHT });
  const url = new URL(result.href as string);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  expect(response.status).toBe(200);
  const file = path.join(workDir, name);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  expect(await probeVideoFile(file)).toMatchObject({ codec: 'h264', frames: 50 });
  return { file, frames: await decodeVideoFrames(file, WIDTH, HEIGHT) };
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'video-clock-e2e-'));
  const source = path.join(workDir, 'rgb.mp4');
  // At 30 fps, not the video's 25, so the decode resamples: red until 0.5 s, lime until 1 s, blue until 1.5 s, then it ends.
  await writeColourVideo(source, [{ colour: 'red', seconds: 0.5 }, { colour: 'lime', seconds: 0.5 }, { colour: 'blue', seconds: 0.5 }], '160x90', 30);
  const bytes = await readFile(source);
  sourceServer = createServer((req, res) => {
    if (req.url !== '/rgb.mp4') return void res.writeHead(404).end();
    sourceFetches++;
    res.writeHead(200, { 'content-type': 'video/mp4' }).end(bytes);
  });
  await new Promise<void>((resolve) => sourceServer.listen(0, '127.0.0.1', resolve));
  sourceUrl = `http://127.0.0.1:${(sourceServer.address() as AddressInfo).port}/rgb.mp4`;
  // The source is served on loopback, which is private unless allowed.
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (sourceServer ? sourceServer.close(resolve) : resolve(undefined)));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('VIDEO components in canvas-html videos', () => {
  it("show the source's frame of each frame's instant, hold its last frame, and render the same twice", async () => {
    const templateId = await createClipTemplate(sourceUrl);
    const fetchesBefore = sourceFetches;
    const first = await renderFrames(templateId, 'first.mp4');
    expect(first.frames).toHaveLength(50);
    // The service fetched the source once for the whole video; the page never did.
    expect(sourceFetches - fetchesBefore).toBe(1);

    // Frame i shows the instant i / 25 s; frames next to a colour change (12, 13, 25, 37) are not asserted.
    const expected: [number, Colour][] = [
      [0, 'red'], [5, 'red'], [11, 'red'],
      [14, 'lime'], [19, 'lime'], [23, 'lime'],
      [27, 'blue'], [32, 'blue'], [36, 'blue'],
      // The source ended at 1.5 s: its last frame stays.
      [38, 'blue'], [44, 'blue'], [49, 'blue'],
    ];
    for (const [index, colour] of expected) {
      expect(clipColoursOf(first.frames[index] ?? Buffer.alloc(0)), `frame ${index}`).toEqual([colour, colour, colour]);
    }
    // Outside the component's box the page stays black.
    expect(colourAt(first.frames[19] ?? Buffer.alloc(0), 20, 90)).toBe('black');

    // Deterministic: a second render of the same request shows the same pixels in every frame.
    const second = await renderFrames(templateId, 'second.mp4');
    expect(second.frames).toHaveLength(50);
    for (const [index, frame] of first.frames.entries()) {
      const other = second.frames[index] ?? Buffer.alloc(0);
      let largest = 0;
      for (let byte = 0; byte < frame.length; byte++) largest = Math.max(largest, Math.abs((frame[byte] ?? 0) - (other[byte] ?? 0)));
      expect(largest, `frame ${index}`).toBeLessThanOrEqual(2);
    }
  });

  it('fails the render with the reason, refunded, when the source cannot be fetched', async () => {
    const templateId = await createClipTemplate(sourceUrl.replace('rgb.mp4', 'missing.mp4'));
    const accepted = await app.call('POST', '/api/v2/render', { body: { template: templateId, outputFormat: 'mp4', cache: false } });
    expect(accepted.status).toBe(202);
    expect(await finished(accepted.body.requestId)).toMatchObject({
      status: 'failed',
      credits: 0,
      failureReason: expect.stringMatching(/VIDEO source .*missing\.mp4 answered 404/),
    });
  });
});
