import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { expectError } from '../support/expect-error.js';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';

/*
 * Account administration (URL-signing keys, signed URLs, settings, the webhook secret) needs the
 * admin scope, over REST and tRPC alike: a render-only key, the kind published in <img> URLs, can
 * render and nothing more, and a key with every other scope cannot administer either. Over the
 * in-memory world: the same express app, tRPC router and use cases as `npm start`.
 */

let app: InMemoryApp;
let orgId: string;
let renderOnly: string;
let allButAdmin: string;
let signingKeyId: string;
let templateId: string;

beforeAll(async () => {
  app = await startInMemoryApp();
  orgId = (await app.call('GET', '/trpc/ping')).body.result.data.orgId;
  const { accounts } = app.services;
  renderOnly = (await accounts.issueApiKey(orgId, { label: 'published in img URLs', scopes: ['render'] })).key;
  allButAdmin = (await accounts.issueApiKey(orgId, { label: 'no admin', scopes: ['render', 'templates', 'audit'] })).key;
  const created = await app.call('POST', '/api/v2/url-signing-keys');
  expect(created.status).toBe(200);
  signingKeyId = created.body.identifier;
  templateId = (await app.call('POST', '/api/v2/my-templates', { body: { name: 'Card', width: 100, height: 100, editor: 'html-editor' } })).body.identifier;
});
afterAll(async () => {
  await app?.close();
});

const trpc = (key: string) => createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': key } })] });

const restAdministration = (): [string, string, unknown?][] => [
  ['GET', '/api/v2/url-signing-keys'],
  ['POST', '/api/v2/url-signing-keys'],
  ['GET', `/api/v2/url-signing-keys/${signingKeyId}`],
  ['POST', `/api/v2/url-signing-keys/${signingKeyId}`],
  ['DELETE', `/api/v2/url-signing-keys/${signingKeyId}`],
  ['POST', '/api/v2/signed-urls', { template: templateId, expires: Math.floor(Date.now() / 1000) + 600 }],
  ['GET', '/api/v2/account/settings'],
  ['PATCH', '/api/v2/account/settings', { apiKeyInQuery: false }],
];

const trpcAdministration = (key: string): (() => Promise<unknown>)[] => {
  const client = trpc(key);
  return [
    () => client.account.webhookSecret.query(),
    () => client.account.rotateWebhookSecret.mutate(),
    () => client.account.settings.query(),
    () => client.account.changeSettings.mutate({ apiKeyInQuery: false }),
    () => client.account.urlSigningKeys.list.query(),
    () => client.account.urlSigningKeys.get.query({ identifier: signingKeyId }),
    () => client.account.urlSigningKeys.create.mutate(),
    () => client.account.urlSigningKeys.rotate.mutate({ identifier: signingKeyId }),
    () => client.account.urlSigningKeys.revoke.mutate({ identifier: signingKeyId }),
    () => client.signedUrls.create.mutate({ template: templateId, expires: Math.floor(Date.now() / 1000) + 600, format: 'jpg' }),
  ];
};

const trpcFailure = async (call: () => Promise<unknown>) => {
  const error = await call().then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
};

describe('account administration', () => {
  it('is a 403 in the spec shape for a render-only key and for a key with every scope but admin, over REST, changing nothing', async () => {
    const head = await app.eventStore.headPosition();
    for (const key of [renderOnly, allButAdmin]) {
      for (const [method, path, body] of restAdministration()) {
        const refused = await app.call(method, path, { key, body });
        expectError(refused, 403, /^missing scope: admin$/);
      }
    }
    expect(await app.eventStore.headPosition()).toBe(head);
  });

  it('is a FORBIDDEN over tRPC for the same keys, with the REST error body and no stack', async () => {
    const head = await app.eventStore.headPosition();
    for (const key of [renderOnly, allButAdmin]) {
      for (const call of trpcAdministration(key)) {
        const error = await trpcFailure(call);
        expect(error.data?.httpStatus).toBe(403);
        expect(error.data?.body).toEqual({ msg: 'This API key lacks the admin scope', status: 403, errors: ['missing scope: admin'] });
        expect(error.data).not.toHaveProperty('stack');
      }
    }
    expect(await app.eventStore.headPosition()).toBe(head);
  });

  it('works for a key with the admin scope, and a render-only key still renders and reads its usage', async () => {
    const admin = (await app.services.accounts.issueApiKey(orgId, { label: 'admin only', scopes: ['admin'] })).key;
    for (const [method, path, body] of restAdministration()) {
      const answer = await app.call(method, path, { key: admin, body });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    const secret = await trpc(admin).account.webhookSecret.query();
    expect(secret.secret).toEqual(expect.any(String));
    expect((await app.call('GET', '/api/v1/usage', { key: renderOnly })).status).toBe(200);
    // Not a 403: the render scope admits it; it is refused later, for another reason.
    const render = await app.call('POST', '/api/v2/render', { key: renderOnly, body: { template: 'no-such-template' } });
    expectError(render, 400, /no template/);
  });
});

describe('error bodies', () => {
  it('carry no stack, over tRPC or REST, whatever the error', async () => {
    const badInput = await fetch(`${app.url}/trpc/templates.get?input=${encodeURIComponent(JSON.stringify({ templateId: 7 }))}`, { headers: { 'x-api-key': app.apiKey } });
    const unknownProcedure = await fetch(`${app.url}/trpc/no.such.procedure`, { headers: { 'x-api-key': app.apiKey } });
    const noKey = await fetch(`${app.url}/trpc/ping`);
    const rest = await fetch(`${app.url}/api/v2/my-templates`, { method: 'POST', headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' }, body: '{"name":' });
    for (const response of [badInput, unknownProcedure, noKey, rest]) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      const text = await response.text();
      expect(text).not.toMatch(/"stack"|\bat \S+ \(|\/work\/|node_modules/);
    }
  });
});
