import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** The one question the proxy asks: where may this host be reached (throws when it may not). */
export interface EgressPolicy {
  allowedAddress(host: string): Promise<string>;
}

export interface EgressProxy {
  /** Chromium flags that send every connection of the browser through this proxy. */
  readonly chromiumArgs: readonly string[];
  close(): Promise<void>;
}

/** A tunnel or forwarded request idle this long is closed: a page never holds a connection forever. */
const IDLE_TIMEOUT_MS = 60_000;

const HOP_BY_HOP = ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'upgrade'];

const splitHostPort = (authority: string): { host: string; port: number } | null => {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match?.[1] || !match[2]) return null;
  return { host: match[1], port: Number(match[2]) };
};

/**
 * The egress point of every browser the worker runs. Request interception sees documents,
 * subresources and redirects, but not WebSockets, WebTransport or what service workers fetch; a
 * proxy sees every connection. Each target is resolved here, checked against the private-address
 * policy and then connected to at the address that was checked, so a DNS answer that changes
 * between the check and the connection cannot point the page at an internal host.
 */
export const startEgressProxy = async ({ policy, logger }: { policy: EgressPolicy; logger: Logger }): Promise<EgressProxy> => {
  const log = logger.child({ component: 'egress-proxy' });
  const refuse = (socket: net.Socket, reason: string) => {
    log.warn({ reason }, 'egress refused');
    socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(reason)}\r\nconnection: close\r\n\r\n${reason}`);
  };

  const server = http.createServer((request, response) => {
    // Plain http:// requests arrive with the absolute URL as their target.
    void (async () => {
      let target: URL;
      try {
        target = new URL(request.url ?? '');
        if (target.protocol !== 'http:') throw new Error(`only http:// is forwarded, not ${target.protocol}`);
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end((error as Error).message);
        return;
      }
      let address: string;
      try {
        address = await policy.allowedAddress(target.hostname);
      } catch (error) {
        log.warn({ url: target.href, reason: (error as Error).message }, 'egress refused');
        response.writeHead(403, { 'content-type': 'text/plain' }).end((error as Error).message);
        return;
      }
      const headers = { ...request.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      const upstream = http.request(
        { host: address, port: Number(target.port || 80), method: request.method, path: `${target.pathname}${target.search}`, headers, timeout: IDLE_TIMEOUT_MS },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('timeout', () => upstream.destroy(new Error('upstream idle')));
      upstream.on('error', (error) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(error.message);
      });
      request.pipe(upstream);
    })();
  });

  // Tunnels leave the server's bookkeeping once established; closing the proxy ends them too.
  const tunnels = new Set<net.Socket>();

  // https://, wss:// and (through a proxy) ws:// are CONNECT tunnels.
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      const target = splitHostPort(request.url ?? '');
      if (!target) {
        refuse(client, `bad CONNECT target ${request.url}`);
        return;
      }
      let address: string;
      try {
        address = await policy.allowedAddress(target.host);
      } catch (error) {
        refuse(client, (error as Error).message);
        return;
      }
      const upstream = net.connect({ host: address, port: target.port });
      upstream.setTimeout(IDLE_TIMEOUT_MS, () => upstream.destroy());
      client.setTimeout(IDLE_TIMEOUT_MS, () => client.destroy());
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  log.info({ port }, 'egress proxy listening');

  return {
    chromiumArgs: [
      `--proxy-server=http://127.0.0.1:${port}`,
      // Chromium sends loopback straight out unless told otherwise; "<-loopback>" removes that exception.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC would otherwise reach peers over UDP, around any proxy.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    ],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const tunnel of tunnels) tunnel.destroy();
      }),
  };
};
