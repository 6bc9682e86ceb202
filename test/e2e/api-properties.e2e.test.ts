import fc from 'fast-check';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../interfaces/rest/openapi.js';
import { createApiProbe, errorShapeProblem } from '../support/api-probe.js';
import { operationsOf, requestArbitrary, type OpenApiDocument } from '../support/openapi-arbitraries.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Every operation of the OpenAPI document, probed with generated requests (valid ones, and ones
 * with one part broken: types, bounds, huge or hostile strings, nesting, unknown or missing
 * fields, bogus ids, bad keys, malformed bodies): no answer is a 5xx, every 4xx is in the spec's
 * error shape, and a refused request appends nothing. The service does not render here; a
 * render it accepted answers the 503 that says so (the probe tells it apart from any other 5xx).
 * FUZZ_SEED replays another sequence; `npm run fuzz` sends many more.
 */

const document = JSON.parse(JSON.stringify(openApiDocument())) as OpenApiDocument;
const operations = operationsOf(document);
const RUNS_PER_OPERATION = 150;
const seed = Number(process.env.FUZZ_SEED ?? 1_101);

let app: TestApp;
let probe: Awaited<ReturnType<typeof createApiProbe>>;
const statuses = new Map<string, number>();

beforeAll(async () => {
  app = await startTestApp({ rendering: 'off' });
  probe = await createApiProbe({
    url: app.url,
    keys: { valid: app.apiKey, otherOrganization: await app.newOrganizationKey() },
    headPosition: () => app.runtime.eventStore.headPosition(),
  });
});

afterAll(async () => {
  probe?.close();
  await app?.close();
  const sent = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  if (sent > 0) console.info(`api properties: ${sent} requests, seed ${seed}:`, Object.fromEntries([...statuses].sort()));
});

describe('every operation of the OpenAPI document', () => {
  it('is the document the service serves', async () => {
    expect((await app.call('GET', '/openapi.json')).body).toEqual(document);
    expect(operations.length).toBeGreaterThanOrEqual(20);
  });

  it.each(operations.map((operation) => [operation.name, operation] as const))('%s: no 5xx, every 4xx in the error shape, refusals change nothing', async (_name, operation) => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(document, operation), async (plan) => {
        const answer = await probe.send(plan, operation.path, operation.keyInQuery);
        statuses.set(answer.label, (statuses.get(answer.label) ?? 0) + 1);
        if (answer.problem) throw new Error(`${answer.problem}\n  request: ${answer.request}`);
      }),
      { numRuns: RUNS_PER_OPERATION, seed },
    );
  });
});

/** One request written to a socket as it is, and what comes back before the server closes it. */
const rawExchange = (url: string, request: string): Promise<{ status: number; contentType: string; text: string }> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', text = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const contentType = /^content-type: (.*)$/im.exec(head)?.[1] ?? '';
      resolve({ status: Number(head.split(' ')[1]), contentType, text });
    });
  });

// Found by the properties above: Node's HTTP parser answered these itself, with an empty body.
describe('requests refused before any route', () => {
  it('answers URLs and headers over the size Node accepts with 431 in the error shape', async () => {
    const longKey = await app.call('GET', '/api/v1/fonts', { key: 'k'.repeat(20_000) });
    expect(longKey.status).toBe(431);
    expect(longKey.body).toEqual({ msg: 'Request Header Fields Too Large', status: 431, errors: [expect.stringMatching(/larger than the server accepts/)] });
    const longPath = await rawExchange(app.url, `GET /api/v2/my-templates/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(longPath.status).toBe(431);
    expect(errorShapeProblem(longPath)).toBeNull();
  });

  it('answers a request that is not well-formed HTTP with 400 in the error shape', async () => {
    const answer = await rawExchange(app.url, 'GET /api/v1/fonts HTTP/1.1\r\nHost: localhost\r\nnot a header line\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(errorShapeProblem(answer)).toBeNull();
    expect(JSON.parse(answer.text).errors).toEqual(['request: not a well-formed HTTP request']);
  });
});
