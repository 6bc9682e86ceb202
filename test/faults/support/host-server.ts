import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { ensureDatabase, startEmbeddedPostgres } from '../../../infrastructure/postgres/embedded-postgres.js';
import { startTemporalDevServer } from '../../../infrastructure/temporal/dev-server.js';
import { findMinioBinary, startMinio } from '../../support/minio-server.js';

/*
 * One server of the fault test's network, run inside its host's namespace (`ip netns exec rsf-<host>
 * node --import typescript-imports.ts host-server.ts <kind> <options as JSON>`) with the project's own starters. It prints
 * one `ready <JSON>` line when it serves, and stops its server when its standard input closes, so it
 * never outlives the test. Kinds: postgres, temporal, minio, receiver (webhooks and a page to capture),
 * link (a TCP relay whose one-way delay the test sets with `delay <ms>` lines on standard input).
 */

interface Options {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  /** link: where it relays to. */
  readonly target?: { host: string; port: number };
  /** postgres: clients allowed besides loopback. */
  readonly allowedClients?: string;
}

const [kind = '', json = '{}'] = process.argv.slice(2);
const options = JSON.parse(json) as Options;
const stops: (() => Promise<void> | void)[] = [];
const ready = (details: object) => process.stdout.write(`ready ${JSON.stringify(details)}\n`);
const commands = createInterface({ input: process.stdin });
let delayMs = 0;
commands.on('line', (line) => {
  const [command, value] = line.trim().split(' ');
  if (command === 'delay') delayMs = Number(value);
});
commands.on('close', () => void stop());
process.on('SIGTERM', () => void stop());
const stop = async () => {
  for (const each of stops.reverse()) await each();
  process.exit(0);
};

interface Delivery {
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly receivedAt: string;
}

/** A client's receiver on a host of its own: every POST is kept and answered 204; GET /deliveries hands them to the test. */
const startReceiver = () => {
  const deliveries: Delivery[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST') {
        deliveries.push({ url: req.url ?? '', headers: req.headers, body, receivedAt: new Date().toISOString() });
        return void res.writeHead(204).end();
      }
      if (req.url === '/deliveries') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(deliveries));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body style="background:#234567;color:#fff"><h1>a page on its own host</h1></body></html>');
    });
  });
  server.listen(options.port, options.host, () => ready({ url: `http://${options.host}:${options.port}` }));
  stops.push(() => void server.close());
};

/** Relays each connection to the target, holding every chunk `delayMs` in each direction (order kept): latency on a link. */
const startLink = () => {
  const target = options.target;
  if (!target) throw new Error('link needs a target');
  const relay = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (delayMs <= 0) return void to.write(chunk);
      // setTimeout keeps order for equal delays: chunks leave in the order they came.
      setTimeout(() => to.writable && to.write(chunk), delayMs);
    });
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  const server = createTcpServer((client) => {
    const upstream = connect(target.port, target.host);
    relay(client, upstream);
    relay(upstream, client);
  });
  server.listen(options.port, options.host, () => ready({ address: `${options.host}:${options.port}` }));
  stops.push(() => void server.close());
};

switch (kind) {
  case 'postgres': {
    const server = await startEmbeddedPostgres({ dataDir: options.dataDir, host: options.host, port: options.port, allowedClients: options.allowedClients });
    stops.push(() => server.stop());
    ready({ adminUrl: server.url, url: await ensureDatabase(server.url, 'render_service') });
    break;
  }
  case 'temporal': {
    // Every address of its host: the dev server dials its internal services on loopback, so it cannot bind one address alone.
    const server = await startTemporalDevServer({ dataDir: options.dataDir, logger: pino({ level: 'warn' }), ip: '0.0.0.0', port: options.port });
    stops.push(() => server.stop());
    // The pid of the server's watchdog, leader of the group the server runs in: the test kills that group.
    const { pid } = JSON.parse(await readFile(path.join(options.dataDir, 'temporal', 'address'), 'utf8')) as { pid: number };
    ready({ address: `${options.host}:${options.port}`, pid });
    break;
  }
  case 'minio': {
    const binary = findMinioBinary();
    if (!binary) throw new Error('no MinIO binary: run `bash scripts/setup.sh --tests`');
    const { stop: stopMinio, ...server } = await startMinio({ binary, dataDir: path.join(options.dataDir, 'data'), host: options.host });
    stops.push(stopMinio);
    ready(server);
    break;
  }
  case 'receiver':
    startReceiver();
    break;
  case 'link':
    startLink();
    break;
  default:
    throw new Error(`unknown kind ${kind}`);
}
