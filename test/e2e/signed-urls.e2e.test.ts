import { createHmac } from 'node:crypto';
import { createTRPCClient, httpLink } from '@trpc/client';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { expectError } from '../support/expect-error.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Signed GET /img URLs on the whole stack (PostgreSQL, Temporal, Chromium): URLs signed the way
 * docs/signed-urls.md tells a client to, with nothing but the URL in the request; tampered, expired, revoked and
 * foreign ones refused before anything is recorded or charged; caching headers; the organization
 * setting that refuses ?apiKey=; and logs that never hold a signature or a secret.
 */

const PUBLIC_BASE_URL = 'http://images.e2e.test';
const WIDTH = 320;
const HEIGHT = 160;

let app: TestApp;
let otherKey: string;
let templateId: string;
const logLines: string[] = [];
/** Every signature and secret the test saw: none may reach a log line. */
const secrets: string[] = [];

/** The Node signer of docs/signed-urls.md, as a client would write it: independent of the service's own code. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const signedImageUrl = ({ templateId: template, format = 'jpg', values, expires, keyId, secret }: {
  templateId: string;
  format?: string;
  values: Record<string, string>;
  expires: number;
  keyId: string;
  secret: string;
}) => {
  const path = `/img/${encode(template)}.${format}`;
  const pairs = Object.entries(values)
    .map(([name, value]) => [encode(name), encode(String(value))] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const signature = createHmac('sha256', secret).update([path, pairs, expires, keyId].join('\n')).digest('hex');
  secrets.push(signature);
  return `${path}?${pairs ? `${pairs}&` : ''}expires=${expires}&keyId=${encode(keyId)}&signature=${signature}`;
};

const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

/** GET with nothing but the URL (and the headers given): no API key anywhere. */
const get = async (pathAndQuery: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${app.url}${pathAndQuery}`, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  const isJson = response.headers.get('content-type')?.startsWith('application/json') ?? false;
  return { status: response.status, headers: response.headers, bytes, body: isJson ? JSON.parse(bytes.toString('utf8')) : undefined };
};

const createKey = async (key = app.apiKey): Promise<{ identifier: string; secret: string; createdAt: string }> => {
  const created = await app.call('POST', '/api/v2/url-signing-keys', { key });
  expect(created.status).toBe(200);
  secrets.push(created.body.secret);
  return created.body;
};

const creditsUsed = async (key = app.apiKey): Promise<number> => (await app.call('GET', '/api/v1/usage', { key })).body.credits.used;

/** The event log's head once the read models reached it: a refused request must leave both where they were. */
const settledHead = async (): Promise<number | null> => {
  const head = await app.runtime.eventStore.headPosition();
  if (head !== null) await app.runtime.projections.waitFor(head);
  return head;
};

const expectRed = async (image: Buffer, width = WIDTH, height = HEIGHT) => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([width, height]);
  // The bottom-right corner: the background the URL's bg value paints, clear of the title.
  const at = ((height - 10) * info.width + (width - 10)) * 3;
  const [red, green, blue] = [data[at] ?? 0, data[at + 1] ?? 0, data[at + 2] ?? 0];
  expect(red).toBeGreaterThan(230);
  expect(green + blue).toBeLessThan(40);
};

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker', env: { PUBLIC_BASE_URL }, logLines });
  otherKey = await app.newOrganizationKey();
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Signed card', width: WIDTH, height: HEIGHT, editor: 'html-editor' } });
  expect(created.status).toBe(200);
  templateId = created.body.identifier;
  const put = await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, {
    body: { html: '<div class="card" style="background: {{bg}}">{{title}}</div>', css: 'body{margin:0}.card{width:320px;height:160px;font:32px sans-serif;color:#fff}' },
  });
  expect(put.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('URL-signing keys', () => {
  it('are created with their secret shown once, listed without it, and scoped to their organization', async () => {
    const key = await createKey();
    expect(key).toEqual({ identifier: expect.any(String), secret: expect.stringMatching(/^urlsk_[\w-]{43}$/), createdAt: expect.any(String) });
    const listed = await app.call('GET', '/api/v2/url-signing-keys');
    expect(listed.body).toContainEqual({ identifier: key.identifier, createdAt: key.createdAt, rotatedAt: null, revokedAt: null });
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);
    expect((await app.call('GET', `/api/v2/url-signing-keys/${key.identifier}`)).body.identifier).toBe(key.identifier);

    expectError(await app.call('GET', `/api/v2/url-signing-keys/${key.identifier}`, { key: otherKey }), 404);
    expectError(await app.call('DELETE', `/api/v2/url-signing-keys/${key.identifier}`, { key: otherKey }), 404);
    expectError(await app.call('POST', `/api/v2/url-signing-keys/${key.identifier}`, { key: otherKey }), 404);
    expect((await app.call('GET', '/api/v2/url-signing-keys', { key: otherKey })).body).toEqual([]);
  });

  it('are managed over tRPC too', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': otherKey } })] });
    const created = await client.account.urlSigningKeys.create.mutate();
    secrets.push(created.secret);
    expect((await client.account.urlSigningKeys.list.query()).map((key) => key.identifier)).toEqual([created.identifier]);
    const rotated = await client.account.urlSigningKeys.rotate.mutate({ identifier: created.identifier });
    secrets.push(rotated.secret);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await client.account.urlSigningKeys.revoke.mutate({ identifier: created.identifier })).toEqual({ revoked: true });
    expect((await client.account.urlSigningKeys.get.query({ identifier: created.identifier })).revokedAt).toEqual(expect.any(String));
  });
});

describe('a signed image URL', () => {
  let key: { identifier: string; secret: string };
  let url: string;

  beforeAll(async () => {
    key = await createKey();
    url = signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: inOneHour(), keyId: key.identifier, secret: key.secret });
  });

  it('renders with no API key anywhere in the request, cacheable publicly until it expires', async () => {
    expect(url).not.toContain(app.apiKey);
    const image = await get(url);
    expect(image.status, image.bytes.toString('utf8').slice(0, 300)).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    await expectRed(image.bytes);
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(image.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
    // However far off the expiry, caches keep it an hour at most, so a revocation takes effect.
    const yearLong = signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: Math.floor(Date.now() / 1000) + 300 * 24 * 3600, keyId: key.identifier, secret: key.secret });
    expect((await get(yearLong)).headers.get('cache-control')).toBe('public, max-age=3600');
    expect(image.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
  });

  it('is a render-cache hit the second time, costing nothing; If-None-Match with its ETag gets 304 without the file', async () => {
    const before = await creditsUsed();
    const first = await get(url);
    const again = await get(url);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cached')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.bytes.equals(first.bytes)).toBe(true);

    const revalidated = await get(url, { 'if-none-match': first.headers.get('etag') ?? '' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(revalidated.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(revalidated.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect((await get(url, { 'if-none-match': '"something-else"' })).status).toBe(200);
    await settledHead();
    expect(await creditsUsed()).toBe(before);
  });

  it('is a 403 in the error shape when one character of any part changes, recording and charging nothing', async () => {
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'x' ? 'y' : 'x'}${text.slice(at + 1)}`;
    const query = new URL(url, app.url).search;
    const tampered = [
      url.replace('Hello%20signed', 'Hello%20signee'),
      url.replace('title=', 'titlf='),
      url.replace('bg=%23ff0000', 'bg=%23ff0001'),
      url.replace(/expires=(\d+)/, (_all, digits: string) => `expires=${digits.slice(0, -1)}${digits.endsWith('9') ? '8' : '9'}`),
      url.replace(/signature=([0-9a-f]+)/, (_all, hex: string) => `signature=${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`),
      url.replace(/keyId=([^&]+)/, (_all, id: string) => `keyId=${flip(id, id.length - 1)}`),
      url.replace(`/img/${templateId}`, `/img/${flip(templateId, templateId.length - 1)}`),
      url.replace('.jpg?', '.png?'),
      `${url}&extra=1`,
      url.replace(/&signature=[0-9a-f]+/, ''),
      `/img/${templateId}.jpg${query.replace(/expires=\d+&/, '')}`,
    ];
    const head = await settledHead();
    const credits = await creditsUsed();
    for (const each of tampered) {
      const refused = await get(each);
      expectError({ status: refused.status, body: refused.body }, 403);
    }
    expect(await settledHead()).toBe(head);
    expect(await creditsUsed()).toBe(credits);
  });

  it('records its first render only: five anonymous views, two of them revalidations, add one result and one charge', async () => {
    const fresh = signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Five views' }, expires: inOneHour(), keyId: key.identifier, secret: key.secret });
    await settledHead();
    const resultsBefore = (await app.call('GET', '/api/v2/results')).body.totalElements;
    const credits = await creditsUsed();
    const head = await settledHead();

    const first = await get(fresh);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    const afterRender = await settledHead();
    expect(afterRender).toBeGreaterThan(head ?? 0);
    const views = [await get(fresh), await get(fresh, { 'if-none-match': etag }), await get(fresh), await get(fresh, { 'if-none-match': etag })];
    expect(views.map((view) => view.status)).toEqual([200, 304, 200, 304]);
    for (const view of views) expect(view.headers.get('x-request-id')).toBe(first.headers.get('x-request-id'));

    expect(await settledHead()).toBe(afterRender);
    expect((await app.call('GET', '/api/v2/results')).body.totalElements).toBe(resultsBefore + 1);
    expect(await creditsUsed()).toBe(credits + 1);
  });

  it('is a 403 when a name is repeated, in either order, recording nothing', async () => {
    const values = { bg: '#ff0000', title: 'Twice' };
    const expires = inOneHour();
    const signed = signedImageUrl({ templateId, values, expires, keyId: key.identifier, secret: key.secret });
    const head = await settledHead();
    // Two titles sign alike in either order (the canonical form sorts them), so neither order may be served.
    const signature = /signature=([0-9a-f]{64})/.exec(signed)?.[1] ?? '';
    const canonical = [`/img/${templateId}.jpg`, 'bg=%23ff0000&title=A&title=B', expires, key.identifier].join('\n');
    const both = createHmac('sha256', key.secret).update(canonical).digest('hex');
    secrets.push(signature, both);
    const tail = `expires=${expires}&keyId=${encodeURIComponent(key.identifier)}&signature=${both}`;
    for (const order of ['title=A&title=B', 'title=B&title=A']) {
      const refused = await get(`/img/${templateId}.jpg?bg=%23ff0000&${order}&${tail}`);
      expectError({ status: refused.status, body: refused.body }, 403, /^title: a signed URL names each value once/);
    }
    expect(await settledHead()).toBe(head);
  });

  it('is a 403 when it expires more than 366 days ahead, even signed with a good key', async () => {
    const farOff = signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: Math.floor(Date.now() / 1000) + 400 * 24 * 3600, keyId: key.identifier, secret: key.secret });
    const refused = await get(farOff);
    expectError({ status: refused.status, body: refused.body }, 403, /^expires: a signed URL may be valid for at most/);
  });

  it('is a 403 once it expired', async () => {
    const expired = signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: Math.floor(Date.now() / 1000) - 5, keyId: key.identifier, secret: key.secret });
    const head = await settledHead();
    const refused = await get(expired);
    expectError({ status: refused.status, body: refused.body }, 403, /^expires: the URL expired at /);
    expect(await settledHead()).toBe(head);
  });

  it('renders with another organization key only for that organization: its keyId cannot open this template', async () => {
    const foreign = await createKey(otherKey);
    const values = { bg: '#ff0000', title: 'Hello signed' };
    const head = await settledHead();
    const [mine, theirs] = [await creditsUsed(), await creditsUsed(otherKey)];

    // Signed by the other organization: it renders as theirs, where this template does not exist.
    const asTheirs = await get(signedImageUrl({ templateId, values, expires: inOneHour(), keyId: foreign.identifier, secret: foreign.secret }));
    expectError({ status: asTheirs.status, body: asTheirs.body }, 400, /no template/);
    // Their keyId with this organization's secret: the signature does not match.
    const mixed = await get(signedImageUrl({ templateId, values, expires: inOneHour(), keyId: foreign.identifier, secret: key.secret }));
    expectError({ status: mixed.status, body: mixed.body }, 403, /^signature: /);

    expect(await settledHead()).toBe(head);
    expect([await creditsUsed(), await creditsUsed(otherKey)]).toEqual([mine, theirs]);
  });

  it('stops working when its key is rotated or revoked', async () => {
    const second = await createKey();
    const signedWith = (secret: string) => signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: inOneHour(), keyId: second.identifier, secret });
    const before = signedWith(second.secret);
    expect((await get(before)).status).toBe(200);

    const rotated = await app.call('POST', `/api/v2/url-signing-keys/${second.identifier}`);
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.secret);
    expectError(await get(before).then(({ status, body }) => ({ status, body })), 403, /^signature: /);
    const after = signedWith(rotated.body.secret);
    expect((await get(after)).status).toBe(200);

    expect((await app.call('DELETE', `/api/v2/url-signing-keys/${second.identifier}`)).status).toBe(200);
    const head = await settledHead();
    expectError(await get(after).then(({ status, body }) => ({ status, body })), 403, /^keyId: /);
    expect(await settledHead()).toBe(head);
    expectError(await app.call('POST', `/api/v2/url-signing-keys/${second.identifier}`), 409, /revoked/);
    expect((await app.call('GET', `/api/v2/url-signing-keys/${second.identifier}`)).body.revokedAt).toEqual(expect.any(String));
  });
});

describe('POST /api/v2/signed-urls', () => {
  it('signs a URL on the public base URL that renders in the format asked for', async () => {
    const key = await createKey();
    const expires = inOneHour();
    const signed = await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, data: { bg: '#ff0000', title: 'Signed by the service' }, expires, format: 'png', keyId: key.identifier } });
    expect(signed.status).toBe(200);
    expect(signed.body).toEqual({ url: expect.stringMatching(/^http:\/\/images\.e2e\.test\/img\/[^?]+\.png\?bg=%23ff0000&title=Signed%20by%20the%20service&expires=\d+&keyId=[^&]+&signature=[0-9a-f]{64}$/), expiresAt: new Date(expires * 1000).toISOString() });
    const { pathname, search } = new URL(signed.body.url);
    secrets.push(new URLSearchParams(search).get('signature') ?? '');
    // The same URL a client signing with the secret makes.
    expect(`${pathname}${search}`).toBe(signedImageUrl({ templateId, format: 'png', values: { bg: '#ff0000', title: 'Signed by the service' }, expires, keyId: key.identifier, secret: key.secret }));

    const image = await get(`${pathname}${search}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    await expectRed(image.bytes);
  });

  it("uses the newest active key when none is named, and refuses a past expiry, an unknown template and another organization's key", async () => {
    const newest = await createKey();
    const signed = await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: inOneHour() } });
    expect(signed.status).toBe(200);
    expect(new URL(signed.body.url).searchParams.get('keyId')).toBe(newest.identifier);
    expect(new URL(signed.body.url).pathname).toBe(`/img/${templateId}.jpg`);
    secrets.push(new URL(signed.body.url).searchParams.get('signature') ?? '');

    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: 1_000_000 } }), 400, /^expires: /);
    // One year and a bit: beyond the maximum lifetime (the year 5138 was once accepted).
    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: Math.floor(Date.now() / 1000) + 367 * 24 * 3600 } }), 400, /^expires: a signed URL may be valid for at most/);
    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: 99_999_999_999 } }), 400, /^expires: /);
    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: 'nope', expires: inOneHour() } }), 400, /no template/);
    const foreign = (await app.call('GET', '/api/v2/url-signing-keys', { key: otherKey })).body.find((each: { revokedAt: string | null }) => each.revokedAt === null);
    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: inOneHour(), keyId: foreign.identifier } }), 404);
    expectError(await app.call('POST', '/api/v2/signed-urls', { body: { template: templateId, expires: inOneHour(), format: 'gif' } }), 400);
  });
});

describe('API keys in /img query strings', () => {
  it('work by default, and answer 403 once the organization turns them off, while signed URLs and the header still work', async () => {
    const spec = `/img/${templateId}.jpg?bg=%23ff0000&title=Hello%20signed`;
    expect(await app.call('GET', '/api/v2/account/settings')).toMatchObject({ status: 200, body: { apiKeyInQuery: true } });
    const withKey = await get(`${spec}&apiKey=${app.apiKey}`);
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('cache-control')).toBe('private, no-cache');

    expect(await app.call('PATCH', '/api/v2/account/settings', { body: { apiKeyInQuery: false } })).toMatchObject({ status: 200, body: { apiKeyInQuery: false } });
    const refused = await get(`${spec}&apiKey=${app.apiKey}`);
    expectError({ status: refused.status, body: refused.body }, 403, /^apiKey: /);
    expect((await get(spec, { 'x-api-key': app.apiKey })).status).toBe(200);
    const key = await createKey();
    expect((await get(signedImageUrl({ templateId, values: { bg: '#ff0000', title: 'Hello signed' }, expires: inOneHour(), keyId: key.identifier, secret: key.secret }))).status).toBe(200);
    // Another organization's setting is its own.
    expect((await app.call('GET', '/api/v2/account/settings', { key: otherKey })).body).toEqual({ apiKeyInQuery: true });

    expect((await app.call('PATCH', '/api/v2/account/settings', { body: { apiKeyInQuery: true } })).body).toEqual({ apiKeyInQuery: true });
    expect((await get(`${spec}&apiKey=${app.apiKey}`)).status).toBe(200);
    expectError(await app.call('PATCH', '/api/v2/account/settings', { body: { apiKeyInQuery: 'no' } }), 400);
  });
});

describe('logs', () => {
  it('never hold a signature or a signing secret', () => {
    const log = logLines.join('');
    expect(log).toContain('signed image URL verified');
    expect(log).toContain('[redacted]');
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
  });
});
