import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool, type BrowserPool } from '../../infrastructure/rendering/browser-pool.js';
import { startEgressProxy, type EgressProxy } from '../../infrastructure/rendering/egress-proxy.js';
import { createHostPolicy } from '../../infrastructure/rendering/network-guard.js';
import { prepareRenderPage } from '../../infrastructure/rendering/page-confinement.js';
import { NO_ORG_ASSETS } from '../../infrastructure/rendering/org-assets.js';
import { sleep } from '../support/wait-for.js';

const logger = pino({ level: 'silent' });

/** An HTTP server that counts every TCP connection made to it, WebSocket upgrades included. */
const countingServer = async (host: string) => {
  let connections = 0;
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    response.end('reached');
  });
  server.on('connection', () => connections++);
  server.on('upgrade', (_request, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
};

describe('egress proxy in front of Chromium', () => {
  let pool: BrowserPool;
  let proxy: EgressProxy;
  let allowed: Awaited<ReturnType<typeof countingServer>>;
  let internal: Awaited<ReturnType<typeof countingServer>>;

  beforeAll(async () => {
    allowed = await countingServer('127.0.0.1');
    // Another loopback address: private, and not in the allow list below.
    internal = await countingServer('127.0.0.2');
    const policy = createHostPolicy({ allowedPrivateHosts: ['127.0.0.1'] });
    proxy = await startEgressProxy({ policy, logger });
    pool = createBrowserPool({ browsers: 1, pagesPerBrowser: 1, logger, extraArgs: proxy.chromiumArgs, preparePage: prepareRenderPage(policy, NO_ORG_ASSETS) });
    await pool.warmUp();
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    allowed?.server.close();
    internal?.server.close();
  });

  /** Opens a WebSocket and a fetch from inside a page to the server; resolves once both settled. */
  const reachFromPage = (port: number, host: string) =>
    pool.withPage(async (page) => {
      await page.setContent('<!doctype html><title>egress</title>');
      return page.evaluate(
        async (target) => {
          const socket = new Promise<string>((resolve) => {
            const ws = new WebSocket(`ws://${target}/`);
            ws.onopen = () => resolve('open');
            ws.onerror = () => resolve('error');
            ws.onclose = () => resolve('closed');
          });
          const fetched = fetch(`http://${target}/data`).then((response) => response.text(), () => 'blocked');
          return { socket: await socket, fetched: await fetched };
        },
        `${host}:${port}`,
      );
    }, { tenant: 'org-egress', deadlineMs: 20_000 });

  it('lets a page reach an allowed host through the proxy', async () => {
    const before = allowed.connections();
    const outcome = await reachFromPage(allowed.port, '127.0.0.1');
    expect(outcome.fetched).toBe('reached');
    expect(allowed.connections()).toBeGreaterThan(before);
  });

  it('never lets a WebSocket or fetch reach a private host, which request interception alone would miss for the socket', async () => {
    const outcome = await reachFromPage(internal.port, '127.0.0.2');
    await sleep(200);
    expect(outcome.fetched).toBe('blocked');
    expect(outcome.socket).not.toBe('open');
    expect(internal.connections()).toBe(0);
  });

  it('lets no UDP datagram leave a page for a private address: WebRTC STUN/TURN and QUIC are shut', async () => {
    const datagrams: string[] = [];
    const udp = createSocket('udp4');
    udp.on('message', (message, from) => datagrams.push(`${from.address}:${from.port} ${message.length} bytes`));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.2', resolve));
    const target = `127.0.0.2:${udp.address().port}`;
    try {
      await pool.withPage(
        async (page) => {
          // A document of its own, as every template gets: the page's per-document confinement runs first.
          await page.goto(`http://127.0.0.1:${allowed.port}/`);
          await page.evaluate(
            `(async () => {
              try { new WebTransport('https://${target}/'); } catch {}
              // A fresh frame's realm is another way to the constructor.
              const frame = document.createElement('iframe');
              document.body.append(frame);
              const Connection = window.RTCPeerConnection ?? frame.contentWindow.RTCPeerConnection;
              if (typeof Connection === 'undefined') return;
              const connection = new Connection({ iceServers: [{ urls: 'stun:${target}' }, { urls: 'turn:${target}?transport=udp', username: 'u', credential: 'c' }] });
              connection.createDataChannel('probe');
              await connection.setLocalDescription(await connection.createOffer());
              await new Promise((resolve) => setTimeout(resolve, 1500));
              connection.close();
            })()`,
          );
        },
        { tenant: 'org-udp', deadlineMs: 20_000 },
      );
      await sleep(300);
      expect(datagrams).toEqual([]);
    } finally {
      udp.close();
    }
  });
});
