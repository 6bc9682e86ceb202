import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoDocument } from '../../application/ports/video-renderer.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { videoClipsOf } from '../../domain/templates/components/video-clips.js';
import { createHtmlCanvasRenderer } from '../../infrastructure/canvas/html-canvas-renderer.js';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { createChromiumRenderEngine } from '../../infrastructure/rendering/chromium-render-engine.js';
import { createHostPolicy, type HostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { prepareTemplateHost } from '../../infrastructure/rendering/template-document.js';
import { createChromiumVideoRenderer } from '../../infrastructure/video/chromium-video-renderer.js';
import { writeColourVideo } from '../support/colour-video.js';
import { decodeVideoFrames, pixelAt } from '../support/video-files.js';

const WIDTH = 200;
const HEIGHT = 100;
const FPS = 10;

let pool: BrowserPool;
let workDir: string;
let server: Server;
let origin: string;
let sourceBytes: Buffer;
let patternBytes: Buffer;
const requests: string[] = [];
const logger = pino({ level: 'silent' });
const guarded = createHostPolicy({ allowedPrivateHosts: [] });
const allowingLoopback = createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] });

/** One VIDEO component on grey, in the box x 50..150, y 10..90. */
const videoDocument = async (src: string, durationMs: number): Promise<VideoDocument> => {
  const components: ComponentDocument = {
    background: '#808080',
    components: [{ id: 'clip', type: 'VIDEO', x: 50, y: 10, width: 100, height: 80, src, objectFit: 'fill' }],
  };
  const values = resolveValues(components, {});
  const size = { width: WIDTH, height: HEIGHT };
  return {
    ...size,
    html: await createHtmlCanvasRenderer().toHtml(components, values, size),
    videoClips: videoClipsOf(components, values),
    scaleFactor: 1,
    waitTime: 0,
    fps: FPS,
    durationMs,
  };
};

const render = async (document: VideoDocument, hostPolicy: HostPolicy = allowingLoopback) => {
  const renderer = createChromiumVideoRenderer({ pool, hostPolicy, loadTimeoutMs: 10_000, workDir });
  const video = await renderer.render(document, { tenant: 'org-clips', format: 'mp4', quality: 90, crop: null });
  const file = path.join(workDir, `out-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, video.content);
  const frames = await decodeVideoFrames(file, WIDTH, HEIGHT);
  await rm(file);
  return frames;
};

type Colour = 'red' | 'lime' | 'blue' | 'grey';
const colourOf = ([red, green, blue]: [number, number, number]): Colour | string => {
  if (red > 180 && green < 70 && blue < 70) return 'red';
  if (green > 180 && red < 70 && blue < 70) return 'lime';
  if (blue > 180 && red < 70 && green < 70) return 'blue';
  if (Math.abs(red - 128) < 20 && Math.abs(green - 128) < 20 && Math.abs(blue - 128) < 20) return 'grey';
  return `rgb(${red},${green},${blue})`;
};
const centreOf = (frame: Buffer) => colourOf(pixelAt(frame, WIDTH, 100, 50));

const expectRefused = async (work: Promise<unknown>, message: RegExp) => {
  const error = await work.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('validation');
  expect((error as DomainError).message).toMatch(message);
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'video-clips-int-'));
  const source = path.join(workDir, 'rgb.mp4');
  // Red 0-0.52 s, lime to 1.04 s, blue to 1.56 s (13 frames of each at 25 fps).
  await writeColourVideo(source, [{ colour: 'red', seconds: 0.5 }, { colour: 'lime', seconds: 0.5 }, { colour: 'blue', seconds: 0.5 }]);
  sourceBytes = await readFile(source);
  // Every frame differs (a moving test pattern with a counter), at 30 fps: a frame off by one shows.
  const pattern = path.join(workDir, 'pattern.mp4');
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=s=160x90:r=30:d=2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', pattern]);
  patternBytes = await readFile(pattern);
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/rgb.mp4') response.writeHead(200, { 'content-type': 'video/mp4' }).end(sourceBytes);
    // The document's load event comes long before this video has a frame to show.
    else if (request.url === '/late-rgb.mp4') setTimeout(() => response.writeHead(200, { 'content-type': 'video/mp4' }).end(sourceBytes), 1_500);
    else if (request.url === '/pattern.mp4') response.writeHead(200, { 'content-type': 'video/mp4' }).end(patternBytes);
    else if (request.url === '/redirect-private') response.writeHead(302, { location: 'http://10.255.255.1/x.mp4' }).end();
    else if (request.url === '/redirect-ok') response.writeHead(302, { location: '/rgb.mp4' }).end();
    else if (request.url === '/not-a-video') response.writeHead(200).end('<html>hello</html>');
    else if (request.url === '/playlist.m3u8') response.writeHead(200).end('#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n');
    else if (request.url === '/huge') {
      response.writeHead(200, { 'content-type': 'video/mp4' });
      // No content-length: the bound must hold while the body streams in.
      const chunk = Buffer.alloc(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    } else if (request.url === '/slow') {
      response.writeHead(200);
      response.write(Buffer.alloc(100));
      // Never ends.
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 2, logger, preparePage: prepareRenderPage(allowingLoopback, NO_ORG_ASSETS), resetPage: prepareTemplateHost });
  await pool.warmUp();
});

afterAll(async () => {
  await pool?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('VIDEO components on the virtual clock', () => {
  it('shows the source frame of each instant, holds the last one, and renders the same twice', async () => {
    const document = await videoDocument(`${origin}/rgb.mp4`, 2000);
    const fetchesBefore = requests.filter((url) => url === '/rgb.mp4').length;
    const frames = await render(document);
    expect(frames).toHaveLength(20);
    // Fetched once by the service for the whole render; the page never asks for it.
    expect(requests.filter((url) => url === '/rgb.mp4').length - fetchesBefore).toBe(1);
    const expected: [number, Colour][] = [[0, 'red'], [4, 'red'], [6, 'lime'], [9, 'lime'], [11, 'blue'], [15, 'blue'], [19, 'blue']];
    for (const [index, colour] of expected) expect(centreOf(frames[index] ?? Buffer.alloc(0)), `frame ${index}`).toBe(colour);
    // Outside the component's box the page's background shows.
    expect(colourOf(pixelAt(frames[0] ?? Buffer.alloc(0), WIDTH, 20, 50))).toBe('grey');
    const again = await render(document);
    expect(again.map(centreOf)).toEqual(frames.map(centreOf));
    // Sources and frames are gone once the render is over.
    expect((await readdir(workDir)).filter((name) => name.startsWith('video-clips-'))).toEqual([]);
  });

  it('follows redirects that stay allowed, and takes data: URLs', async () => {
    expect((await render(await videoDocument(`${origin}/redirect-ok`, 1000))).map(centreOf).slice(0, 3)).toEqual(['red', 'red', 'red']);
    const dataUrl = `data:video/mp4;base64,${sourceBytes.toString('base64')}`;
    const frames = await render(await videoDocument(dataUrl, 1000));
    expect(centreOf(frames[7] ?? Buffer.alloc(0))).toBe('lime');
  });

  it('refuses sources the private-address guard refuses, before any page is taken', async () => {
    await expectRefused(render(await videoDocument(`${origin}/rgb.mp4`, 1000), guarded), /private, loopback or link-local/);
    await expectRefused(render(await videoDocument(`${origin}/redirect-private`, 1000)), /private, loopback or link-local/);
  });

  it('refuses what cannot be fetched or decoded with a validation error naming the source', async () => {
    await expectRefused(render(await videoDocument(`${origin}/missing.mp4`, 1000)), /missing\.mp4 answered 404/);
    await expectRefused(render(await videoDocument(`${origin}/not-a-video`, 1000)), /not-a-video could not be decoded/);
    // A playlist would make ffmpeg open what it names (here a local file): its demuxer is not allowed.
    await expectRefused(render(await videoDocument(`${origin}/playlist.m3u8`, 1000)), /playlist\.m3u8 could not be decoded/);
  });

  it('leaves image renders to the <video> element, which shows the first frame', async () => {
    const engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 10_000, captureTimeoutMs: 10_000, maxPdfPages: 200 });
    const image = await engine.render(await videoDocument(`${origin}/rgb.mp4`, 1000), { tenant: 'org-clips', format: 'png', quality: 100, crop: null });
    const { data, info } = await sharp(image.content).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(WIDTH);
    expect(centreOf(data)).toBe('red');
  });

  it('shows the first frame of a <video> in a document without scripts too (drawn in a fresh frame: a sandboxed one dims it)', async () => {
    const engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 10_000, captureTimeoutMs: 10_000, maxPdfPages: 200 });
    const html = `<body style="margin:0;background:#808080"><video muted preload="auto" src="${origin}/rgb.mp4" style="position:absolute;left:50px;top:10px;width:100px;height:80px;object-fit:fill"></video></body>`;
    const image = await engine.render({ ...(await videoDocument(`${origin}/rgb.mp4`, 1000)), html }, { tenant: 'org-clips', format: 'png', quality: 100, crop: null });
    const { data } = await sharp(image.content).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(centreOf(data)).toBe('red');
  });

  it('waits for a <video> that a script starts loading after the load event', async () => {
    const engine = createChromiumRenderEngine({ pool, loadTimeoutMs: 10_000, captureTimeoutMs: 10_000, maxPdfPages: 200 });
    // The load event waits only for media that began loading before it; this source also arrives late.
    const html =
      '<body style="margin:0;background:#808080"><video muted style="position:absolute;left:50px;top:10px;width:100px;height:80px;object-fit:fill"></video>' +
      `<script>addEventListener('load', () => { document.querySelector('video').src = '${origin}/late-rgb.mp4'; });</script></body>`;
    const image = await engine.render({ ...(await videoDocument(`${origin}/rgb.mp4`, 1000)), html }, { tenant: 'org-clips', format: 'png', quality: 100, crop: null });
    const { data } = await sharp(image.content).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(centreOf(data)).toBe('red');
  });

  it('bounds the bytes and the time of a download', async () => {
    const { prepareVideoClips } = await import('../../infrastructure/video/video-clips.js');
    const timing = { fps: FPS, frames: 10, scaleFactor: 1 };
    const clip = (name: string) => [{ src: `${origin}/${name}`, width: 10, height: 10, naturalSize: false }];
    await expectRefused(prepareVideoClips(clip('huge'), timing, { hostPolicy: allowingLoopback, workDir, limits: { maxSourceBytes: 1024 * 1024 } }), /larger than 1048576 bytes/);
    const started = Date.now();
    await expectRefused(prepareVideoClips(clip('slow'), timing, { hostPolicy: allowingLoopback, workDir, limits: { fetchTimeoutMs: 500 } }), /could not be fetched in time/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await readdir(workDir)).filter((name) => name.startsWith('video-clips-'))).toEqual([]);
  });

  it("decodes a segment's frames exactly as a whole render does, and holds the last frame past the source's end", async () => {
    const { prepareVideoClips } = await import('../../infrastructure/video/video-clips.js');
    const src = `${origin}/pattern.mp4`;
    const clips = [{ src, width: 100, height: 80, naturalSize: false }];
    const timing = { fps: 25, frames: 60, scaleFactor: 1 };
    const whole = await prepareVideoClips(clips, timing, { hostPolicy: allowingLoopback, workDir });
    const segment = await prepareVideoClips(clips, { ...timing, firstFrame: 17, frames: 30 }, { hostPolicy: allowingLoopback, workDir });
    const beyond = await prepareVideoClips(clips, { ...timing, firstFrame: 55 }, { hostPolicy: allowingLoopback, workDir });
    try {
      const same = async (a: Promise<Buffer | null>, b: Promise<Buffer | null>) => {
        const [left, right] = await Promise.all([a, b]);
        return left !== null && right !== null && left.equals(right);
      };
      expect(await same(whole.readFrame(src, 20), whole.readFrame(src, 21))).toBe(false);
      for (let frame = 17; frame < 30; frame++) expect(await same(segment.readFrame(src, frame), whole.readFrame(src, frame)), `frame ${frame}`).toBe(true);
      // Frames outside the segment are the nearest one inside it (the page asks for frame 0 as it loads).
      expect(await same(segment.readFrame(src, 0), whole.readFrame(src, 17))).toBe(true);
      // The source has 2 s of frames (50 at 25 fps): past them every render shows its last one.
      expect(await same(whole.readFrame(src, 49), whole.readFrame(src, 59))).toBe(true);
      expect(await same(whole.readFrame(src, 48), whole.readFrame(src, 49))).toBe(false);
      for (const frame of [55, 59]) expect(await same(beyond.readFrame(src, frame), whole.readFrame(src, 49)), `frame ${frame}`).toBe(true);
    } finally {
      await Promise.all([whole.dispose(), segment.dispose(), beyond.dispose()]);
    }
  });

  it('bounds the bytes of decoded frames a render holds', async () => {
    const { prepareVideoClips } = await import('../../infrastructure/video/video-clips.js');
    const clips = [{ src: `${origin}/rgb.mp4`, width: 160, height: 90, naturalSize: false }];
    await expectRefused(
      prepareVideoClips(clips, { fps: FPS, frames: 15, scaleFactor: 1 }, { hostPolicy: allowingLoopback, workDir, limits: { maxFrameBytes: 4096 } }),
      /decodes to more than 4096 bytes of frames/,
    );
    expect((await readdir(workDir)).filter((name) => name.startsWith('video-clips-'))).toEqual([]);
  });
});
