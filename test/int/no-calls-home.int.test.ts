import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { DEFAULT_CHROMIUM_PATH } from '../../infrastructure/rendering/chromium-path.js';

/*
 * Every connection a browser of the service opens goes through its proxy (as the egress proxy is
 * wired in production), and this one records the host of each and answers nothing. Renders name
 * one host; after they and a few idle seconds (Chromium's own calls come within ~3 s of start),
 * the browsers must have asked for that host and no other.
 */

const NAMED_HOST = 'named-by-the-template.example';
/** Chromium's calls home came within 3 s of start here; twice that covers a slower machine. */
const IDLE_MS = 6_000;

let proxy: Server;
let proxyArgs: string[];
const requested = new Set<string>();

const hostOf = (target: string) => {
  try {
    return new URL(target.includes('://') ? target : `http://${target}`).hostname;
  } catch {
    return target;
  }
};

beforeAll(async () => {
  proxy = createServer((request, response) => {
    requested.add(hostOf(request.url ?? ''));
    response.writeHead(403).end();
  });
  proxy.on('connect', (request, socket) => {
    requested.add(hostOf(request.url ?? ''));
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  proxyArgs = [`--proxy-server=http://127.0.0.1:${port}`, '--proxy-bypass-list=<-loopback>'];
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
});

const browsers = [
  { name: 'the render pool (chrome-headless-shell)', executablePath: DEFAULT_CHROMIUM_PATH, framesOnDemand: false },
  { name: 'a render pool on full Chromium (CHROMIUM_PATH=/usr/bin/chromium)', executablePath: '/usr/bin/chromium', framesOnDemand: false },
  { name: 'the video pool (chrome-headless-shell)', executablePath: DEFAULT_CHROMIUM_PATH, framesOnDemand: true },
].filter((browser) => existsSync(browser.executablePath));

describe('no calls home', () => {
  it('knows which browsers it checks', () => {
    expect(browsers.map((browser) => browser.name)).toEqual(expect.arrayContaining(['the render pool (chrome-headless-shell)', 'a render pool on full Chromium (CHROMIUM_PATH=/usr/bin/chromium)']));
  });

  it.each(browsers)('$name asks for no host that no template named', async ({ executablePath, framesOnDemand }) => {
    requested.clear();
    const pool = createBrowserPool({ executablePath, framesOnDemand, browsers: 1, pagesPerBrowser: 1, extraArgs: proxyArgs, logger: pino({ level: 'silent' }) });
    try {
      await pool.withPage(
        async (page) => {
          await page.setContent(`<img src="http://${NAMED_HOST}/logo.png"><link rel="stylesheet" href="https://${NAMED_HOST}/style.css">`, { waitUntil: 'load', timeout: 10_000 });
        },
        { tenant: 'org-1', deadlineMs: 20_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    } finally {
      await pool.close();
    }
    // The template's own host shows the proxy sees what the browser asks for.
    expect(requested).toContain(NAMED_HOST);
    expect([...requested].filter((host) => host !== NAMED_HOST)).toEqual([]);
  }, 60_000);
});
