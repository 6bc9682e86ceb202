import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor of a cache hit on this machine: node:http alone, in the service's thread, reading the
 * hit's request, parsing its JSON and answering a JSON of the hit's shape. What a hit costs above it
 * is the service's own; what it costs in all moves with the machine (loopback TCP, syscalls), so a
 * hits-per-second goal is read against it, measured in the same run.
 */
export const startBareHttpServer = async (): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { template?: unknown };
      const requestId = randomUUID();
      const answer = JSON.stringify({ requestId, href: `http://127.0.0.1/results/${requestId}?template=${String(body.template)}`, cached: true });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
