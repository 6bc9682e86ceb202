import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink } from '@trpc/client';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF_FORMATS, PDF_FORMAT_NAMES } from '../../domain/renders/capture-events.js';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const NAVIGATION_TIMEOUT_MS = 2_000;

let app: TestApp;
/** The pages captured: a node server on loopback, which ALLOWED_PRIVATE_HOSTS lets the service reach. */
let pages: Server;
let pagesUrl: string;
/** Another loopback address nothing allows: any request reaching it is a hole in the guard. */
let secret: Server;
let secretUrl: string;
let secretHits = 0;
const stalled = new Set<import('node:http').ServerResponse>();

const html = (body: string, css = '') =>
  `<!doctype html><html><head><style>html,body{margin:0}${css}</style></head><body>${body}</body></html>`;

const PAGES: Record<string, (res: import('node:http').ServerResponse) => void> = {
  // Green page with a blue 10x10 square at the top-left, far taller and wider than any viewport asked for.
  '/page': (res) => res.end(html('<div id="mark"></div>', 'body{background:#00ff00;width:6000px;height:6000px}#mark{width:10px;height:10px;background:#0000ff}')),
  '/redirect-private': (res) => {
    res.writeHead(302, { location: `${secretUrl}/metadata` });
    res.end();
  },
  '/image-via-private-redirect': (res) => res.end(html('<img src="/redirect-private" width="10" height="10">', 'body{background:#00ff00}')),
  // Loads forever: the image never answers, so the load event never fires.
  '/never-loads': (res) => res.end(html('<div id="mark"></div><img src="/silent">', 'body{background:#ff0000}#mark{width:10px;height:10px;background:#0000ff}')),
  // Sends its head and half a page, then nothing more, ever.
  '/never-ends': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write(`<!doctype html><html><head><style>html,body{margin:0;background:#ff0000}</style></head><body><p>half a page`);
    stalled.add(res);
  },
  // Accepts the request and never answers it.
  '/silent': (res) => {
    stalled.add(res);
  },
  // Leaves a cookie (by header and by script) and local storage behind.
  '/leave': (res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'served=1; Max-Age=3600; Path=/' });
    res.end(html(`<script>document.cookie = 'left=1; max-age=3600'; localStorage.setItem('left', '1');</script>`));
  },
};
/**
 * Red when the capture's request carried a cookie another capture left, or the page finds one or
 * local storage in the browser; green otherwise.
 */
const probe = (cookieHeader: string | undefined) => {
  const sent = /(?:^|; )(?:served|left)=1/.test(cookieHeader ?? '');
  return html(
    `<script>if (${sent} || document.cookie.includes('left=1') || document.cookie.includes('served=1') || localStorage.getItem('left')) document.documentElement.style.background = '#ff0000';</script>`,
    'html{background:#00ff00}',
  );
};
/** Bodies POSTed to /hook: webhooks of captures. */
const hooks: unknown[] = [];

const listen = async (server: Server, host: string) => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
};

const credits = async (key?: string) => (await app.call('GET', '/api/v1/usage', { key })).body.credits.used as number;
const resultCount = async (key?: string) => (await app.call('GET', '/api/v2/results', { key })).body.totalElements as number;

/** Fetches an href through the test server (hrefs name the configured public base URL). */
const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

const pixel = async (bytes: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [data[offset], data[offset + 1], data[offset + 2]];
};

const screenshot = (body: Record<string, unknown>, key?: string) => app.call('POST', '/api/v1/screenshots', { key, body });
const pdf = (body: Record<string, unknown>) => app.call('POST', '/api/v1/pdf', { body });

beforeAll(async () => {
  pages = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/hook') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        hooks.push(JSON.parse(body));
        res.end('ok');
      });
      return;
    }
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (pathname === '/probe') return res.end(probe(req.headers.cookie));
    const page = PAGES[pathname];
    if (page) return page(res);
    res.writeHead(404).end();
  });
  secret = createServer((_req, res) => {
    secretHits++;
    res.end(html('<h1>secret</h1>'));
  });
  pagesUrl = await listen(pages, '127.0.0.1');
  secretUrl = await listen(secret, '127.0.0.2');
  app = await startTestApp({
    rendering: 'worker',
    env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1', CAPTURE_NAVIGATION_TIMEOUT_MS: String(NAVIGATION_TIMEOUT_MS) },
  });
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await app?.close();
  pages?.close();
  secret?.close();
});

describe('POST /api/v1/screenshots', () => {
  it.each([
    [32, 32],
    [800, 600],
    [1280, 50],
  ])('captures exactly %dx%d pixels of the page', async (width, height) => {
    const request = { url: `${pagesUrl}/page`, width, height };
    const response = await screenshot(request);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ requestId: expect.any(String), href: expect.stringContaining(response.body.requestId), request });
    const file = await download(response.body.href);
    expect(file.type).toBe('image/png');
    const metadata = await sharp(file.bytes).metadata();
    expect([metadata.width, metadata.height]).toEqual([width, height]);
    expect(await pixel(file.bytes, 0, 0)).toEqual([0, 0, 255]);
    expect(await pixel(file.bytes, width - 1, height - 1)).toEqual([0, 255, 0]);
  });

  it('charges 1 credit and lists the capture in results with its size and URL', async () => {
    const before = await credits();
    const url = `${pagesUrl}/page`;
    const response = await screenshot({ url, width: 300, height: 200, waitTime: 100 });
    expect(response.status).toBe(200);
    expect(await credits()).toBe(before + 1);
    const detail = await app.call('GET', `/api/v2/results/${response.body.requestId}`);
    expect(detail.body).toMatchObject({ identifier: response.body.requestId, status: 'done', kind: 'screenshot', url, format: 'png', width: 300, height: 200, credits: 1 });
    for (let i = 0; i < 50; i++) {
      const listed = (await app.call('GET', '/api/v2/results?size=50')).body.content;
      if (listed.some((item: { identifier: string }) => item.identifier === response.body.requestId)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the capture never appeared in the results list');
  });

  it('is deleted like any result, file and all', async () => {
    const response = await screenshot({ url: `${pagesUrl}/page`, width: 40, height: 40 });
    expect((await download(response.body.href)).status).toBe(200);
    expect((await app.call('DELETE', `/api/v2/results/${response.body.requestId}`)).status).toBe(200);
    expect((await app.call('GET', `/api/v2/results/${response.body.requestId}`)).status).toBe(404);
    expect((await download(response.body.href)).status).toBe(404);
  });

  it('answers at once with a webhookUrl and POSTs { requestId, href, request } when the capture is stored', async () => {
    const request = { url: `${pagesUrl}/page`, width: 50, height: 50, webhookUrl: `${pagesUrl}/hook` };
    const response = await screenshot(request);
    expect(response.status).toBe(200);
    for (let i = 0; i < 100 && !hooks.some((hook) => (hook as { requestId: string }).requestId === response.body.requestId); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(hooks).toContainEqual({ requestId: response.body.requestId, href: response.body.href, request });
    expect((await download(response.body.href)).status).toBe(200);
  });

  it('captures through the typed tRPC client', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': app.apiKey } })] });
    const answer = await client.captures.screenshot.mutate({ url: `${pagesUrl}/page`, width: 64, height: 48 });
    const metadata = await sharp((await download(answer.href)).bytes).metadata();
    expect([metadata.width, metadata.height]).toEqual([64, 48]);
  });
});

describe('capture options (issue 42) through REST, tRPC and the worker', () => {
  it('captures one element as WebP at scale 2, records the options and lists the format, for 1 credit', async () => {
    const before = await credits();
    const request = { url: `${pagesUrl}/page`, width: 300, height: 200, selector: '#mark', format: 'webp', quality: 90, deviceScaleFactor: 2, colorScheme: 'dark', blockAds: true };
    const response = await screenshot(request);
    expect(response.status).toBe(200);
    expect(response.body.request).toEqual(request);
    const file = await download(response.body.href);
    expect(file.type).toBe('image/webp');
    expect(await sharp(file.bytes).metadata()).toMatchObject({ format: 'webp', width: 20, height: 20 });
    expect(await credits()).toBe(before + 1);
    const detail = await app.call('GET', `/api/v2/results/${response.body.requestId}`);
    expect(detail.body).toMatchObject({ status: 'done', format: 'webp', width: 20, height: 20 });
  });

  it('captures the whole page, cut at the documented height, through tRPC', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': app.apiKey } })] });
    const answer = await client.captures.screenshot.mutate({ url: `${pagesUrl}/page`, width: 100, height: 100, fullPage: true, format: 'jpeg' });
    expect(await sharp((await download(answer.href)).bytes).metadata()).toMatchObject({ format: 'jpeg', width: 100, height: 6000 });
  });

  it.each([
    [{ deviceScaleFactor: 4 }, /deviceScaleFactor/],
    [{ quality: 101, format: 'jpeg' }, /quality/],
    [{ quality: 80 }, /quality/],
    [{ format: 'gif' }, /format/],
    [{ colorScheme: 'blue' }, /colorScheme/],
    [{ fullPage: true, selector: '#mark' }, /selector/],
    [{ width: 5000, height: 5000, deviceScaleFactor: 2 }, /deviceScaleFactor/],
  ])('answers 400 for a screenshot with %j, nothing charged', async (change, pattern) => {
    const key = await app.newOrganizationKey();
    const response = await screenshot({ url: `${pagesUrl}/page`, width: 100, height: 100, ...change }, key);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, msg: expect.any(String) });
    expect(response.body.errors.join('\n')).toMatch(pattern);
    expect(await credits(key)).toBe(0);
  });

  it('keeps the private-address guard with every option', async () => {
    const hitsBefore = secretHits;
    const response = await screenshot({ url: `${secretUrl}/`, width: 100, height: 100, fullPage: true, scrollPage: true, blockAds: true });
    expect(response.status).toBe(400);
    expect(secretHits).toBe(hitsBefore);
  });
});

describe('captures on warm pages of each organization', () => {
  it("never lets one organization's capture see the cookies or storage another's left, on the pages it reuses", async () => {
    const [leaving, other] = [await app.newOrganizationKey(), await app.newOrganizationKey()];
    const colourOfProbe = async (key: string) => {
      const response = await screenshot({ url: `${pagesUrl}/probe`, width: 40, height: 40 }, key);
      expect(response.status).toBe(200);
      return pixel((await download(response.body.href)).bytes, 20, 20);
    };
    expect((await screenshot({ url: `${pagesUrl}/leave`, width: 40, height: 40 }, leaving)).status).toBe(200);
    // The probe does see state: an organization's own next capture, on its one warm page, finds what it left (as before).
    expect(await colourOfProbe(leaving)).toEqual([255, 0, 0]);
    for (let i = 0; i < 3; i++) expect(await colourOfProbe(other)).toEqual([0, 255, 0]);
  });

  it('captures pages of sizes and kinds in turn on the same warm pages, each exactly as asked', async () => {
    for (const [width, height] of [
      [120, 80],
      [64, 200],
      [120, 80],
    ] as const) {
      const shot = await screenshot({ url: `${pagesUrl}/page`, width, height });
      const metadata = await sharp((await download(shot.body.href)).bytes).metadata();
      expect([metadata.width, metadata.height]).toEqual([width, height]);
      const printed = await pdf({ url: `${pagesUrl}/page`, format: 'A5' });
      expect((await PDFDocument.load((await download(printed.body.href)).bytes)).getPageCount()).toBeGreaterThan(0);
    }
  });
});

describe('POST /api/v1/pdf', () => {
  /** Chromium rounds the paper to whole device pixels: a media box may be off by up to about a point. */
  const expectPoints = (points: number, millimetres: number) => expect(Math.abs(points - (millimetres * 72) / 25.4)).toBeLessThan(2);

  it.each(PDF_FORMAT_NAMES)('prints %s pages', async (format) => {
    const response = await pdf({ url: `${pagesUrl}/page`, format });
    expect(response.status).toBe(200);
    const file = await download(response.body.href);
    expect(file.type).toBe('application/pdf');
    const document = await PDFDocument.load(file.bytes);
    const { width, height } = document.getPage(0).getSize();
    expectPoints(width, PDF_FORMATS[format].width);
    expectPoints(height, PDF_FORMATS[format].height);
  });

  it('prints A4 when no format is given, and answers the request as sent', async () => {
    const request = { url: `${pagesUrl}/page`, waitTime: 0 };
    const response = await pdf(request);
    expect(response.body).toEqual({ requestId: expect.any(String), href: expect.any(String), request });
    const document = await PDFDocument.load((await download(response.body.href)).bytes);
    expectPoints(document.getPage(0).getSize().width, 210);
  });
});

describe('what a capture refuses', () => {
  it.each([
    [{ width: 31 }, /width/],
    [{ width: 5001 }, /width/],
    [{ height: 31 }, /height/],
    [{ height: 5001 }, /height/],
    [{ width: 100.5 }, /width/],
    [{ waitTime: -1 }, /waitTime/],
    [{ waitTime: 5001 }, /waitTime/],
    [{ url: '' }, /url/],
    [{ url: undefined }, /url/],
    [{ surprise: 1 }, /surprise/],
  ])('answers 400 for a screenshot with %j', async (change, pattern) => {
    const response = await screenshot({ url: `${pagesUrl}/page`, width: 100, height: 100, ...change });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, msg: expect.any(String) });
    expect(response.body.errors.join('\n')).toMatch(pattern);
  });

  it.each([
    [{ format: 'A7' }, /format/],
    [{ format: 'a4' }, /format/],
    [{ waitTime: 5001 }, /waitTime/],
    [{ width: 100 }, /width/],
  ])('answers 400 for a PDF with %j', async (change, pattern) => {
    const response = await pdf({ url: `${pagesUrl}/page`, ...change });
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(pattern);
  });

  it.each([
    ['http://10.0.0.1/', /private/],
    ['http://192.168.1.1/admin', /private/],
    ['http://169.254.169.254/latest/meta-data/', /private/],
    ['http://[::1]/', /private/],
    ['http://[fe80::1]/', /private/],
    ['http://0.0.0.0/', /private/],
    ['http://127.0.0.2/', /private/],
    ['file:///etc/passwd', /only http and https/],
    ['ftp://example.com/', /only http and https/],
    ['javascript:alert(1)', /only http and https/],
    ['not a url', /not a valid URL/],
  ])('answers 400 for %s before any work: nothing charged, nothing listed', async (url, pattern) => {
    const key = await app.newOrganizationKey();
    const response = await screenshot({ url, width: 100, height: 100 }, key);
    expect(response.status).toBe(400);
    expect(response.body.errors.join('\n')).toMatch(pattern);
    expect(await credits(key)).toBe(0);
    expect(await resultCount(key)).toBe(0);
  });

  it('refuses a page that redirects to a private address, without reaching it, and refunds', async () => {
    const key = await app.newOrganizationKey();
    const hitsBefore = secretHits;
    const response = await screenshot({ url: `${pagesUrl}/redirect-private`, width: 100, height: 100 }, key);
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/refused/);
    expect(response.body.errors.join('\n')).toContain(secretUrl);
    expect(secretHits).toBe(hitsBefore);
    expect(await credits(key)).toBe(0);
  });

  it('blocks the subresources of a page that redirect to a private address, and still captures the page', async () => {
    const hitsBefore = secretHits;
    const response = await screenshot({ url: `${pagesUrl}/image-via-private-redirect`, width: 100, height: 100 });
    expect(response.status).toBe(200);
    expect(secretHits).toBe(hitsBefore);
    expect(await pixel((await download(response.body.href)).bytes, 99, 99)).toEqual([0, 255, 0]);
  });
});

describe('pages that never settle', () => {
  it.each(['/never-loads', '/never-ends'])('captures %s as it stands once the navigation time is up', async (path) => {
    const started = Date.now();
    const response = await screenshot({ url: `${pagesUrl}${path}`, width: 100, height: 100 });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(NAVIGATION_TIMEOUT_MS);
    expect(elapsed).toBeLessThan(NAVIGATION_TIMEOUT_MS + 8_000);
    expect(await pixel((await download(response.body.href)).bytes, 99, 99)).toEqual([255, 0, 0]);
  });

  it('prints a PDF of a page that never finishes loading', async () => {
    const started = Date.now();
    const response = await pdf({ url: `${pagesUrl}/never-loads`, format: 'A6' });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(NAVIGATION_TIMEOUT_MS + 8_000);
    expect((await PDFDocument.load((await download(response.body.href)).bytes)).getPageCount()).toBeGreaterThan(0);
  });

  it('answers 400 with a clear reason for a page that never answers, and refunds', async () => {
    const key = await app.newOrganizationKey();
    const started = Date.now();
    const response = await screenshot({ url: `${pagesUrl}/silent`, width: 100, height: 100 }, key);
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/did not answer within 2000 ms/);
    expect(Date.now() - started).toBeLessThan(NAVIGATION_TIMEOUT_MS + 8_000);
    expect(await credits(key)).toBe(0);
  });
});
