import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchWebhookSender } from '../../infrastructure/webhooks/fetch-webhook-sender.js';

describe('webhook sender', () => {
  let server: Server;
  let port: number;
  const received: { host: string | undefined; body: string; signature: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ host: request.headers.host, body, signature: request.headers['webhook-signature'] as string | undefined });
        response.writeHead(request.url === '/fail' ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server?.close());

  it('connects to the address the guard checked, whatever DNS would say about the name', async () => {
    const asked: string[] = [];
    const sender = createFetchWebhookSender({
      timeoutMs: 5_000,
      allowedAddress: async (host) => {
        asked.push(host);
        return '127.0.0.1';
      },
    });
    // receiver.invalid never resolves in DNS: reaching the server proves the connection used the checked address.
    const outcome = await sender.send({ url: `http://receiver.invalid:${port}/hook`, body: '{"a":1}', headers: { 'webhook-signature': 'v1,abc' } });
    expect(outcome).toEqual({ ok: true, statusCode: 204 });
    expect(asked).toEqual(['receiver.invalid']);
    expect(received.at(-1)).toEqual({ host: `receiver.invalid:${port}`, body: '{"a":1}', signature: 'v1,abc' });
  });

  it('sends nothing when the guard refuses the address at connection time', async () => {
    const before = received.length;
    const sender = createFetchWebhookSender({
      timeoutMs: 5_000,
      allowedAddress: async () => {
        throw new Error('requests to private addresses are blocked');
      },
    });
    const outcome = await sender.send({ url: `http://rebound.invalid:${port}/hook`, body: '{}', headers: {} });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('blocked') });
    expect(received.length).toBe(before);
  });

  it('reports a non-2xx answer with its status', async () => {
    const sender = createFetchWebhookSender({ timeoutMs: 5_000, allowedAddress: async () => '127.0.0.1' });
    expect(await sender.send({ url: `http://127.0.0.1:${port}/fail`, body: '{}', headers: {} })).toEqual({
      ok: false,
      statusCode: 500,
      error: 'the receiver answered 500',
    });
  });
});
