import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';

/*
 * The typed tRPC client as internal consumers build it, over the in-memory world: the same tRPC
 * router, route table and use cases as `npm start`.
 */

let app: InMemoryApp;
beforeAll(async () => {
  app = await startInMemoryApp();
});
afterAll(async () => {
  await app?.close();
});

/** A typed client as an internal consumer would build it; `key: null` sends no key at all. */
const clientFor = (key: string | null, batch = true) => {
  const options = { url: `${app.url}/trpc`, headers: () => (key === null ? {} : { 'x-api-key': key }) };
  return createTRPCClient<AppRouter>({ links: [batch ? httpBatchLink(options) : httpLink(options)] });
};

type ClientError = TRPCClientError<AppRouter>;

/** Runs `call`, which must fail, and returns the typed tRPC error it failed with. */
const failureOf = async (call: () => Promise<unknown>): Promise<ClientError> => {
  let caught: unknown;
  try {
    await call();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TRPCClientError);
  return caught as ClientError;
};

const expectFailure = async (call: () => Promise<unknown>, code: string, status: number): Promise<ClientError> => {
  const error = await failureOf(call);
  expect(error.data?.code).toBe(code);
  expect(error.data?.httpStatus).toBe(status);
  expect(error.data?.body).toMatchObject({ status, msg: expect.any(String), errors: expect.any(Array) });
  expect(error.data?.body.errors.length).toBeGreaterThan(0);
  return error;
};

const card = { name: 'Card', width: 1200, height: 630, editor: 'html-editor' } as const;

describe('tRPC typed client: template use cases', () => {
  it('creates a template with the spec defaults and gets it back', async () => {
    const client = clientFor(app.apiKey);
    const created = await client.templates.create.mutate({ ...card, tags: ['social', 'og'] });
    expect(created).toMatchObject({
      name: 'Card',
      width: 1200,
      height: 630,
      editor: 'html-editor',
      outputFormat: 'jpeg',
      outputExtension: '.jpg',
      quality: 80,
      scaleFactor: 1,
      createdBy: 'API',
      tags: ['social', 'og'],
      properties: [],
    });
    // The typed result is the Template DTO: its fields are usable without casts.
    const identifier: string = created.identifier;
    expect(await client.templates.get.query({ templateId: identifier })).toEqual(created);
    // The same template over REST is the same document.
    expect((await app.call('GET', `/api/v2/my-templates/${identifier}`)).body).toEqual(created);
  });

  it('lists with name, tags and paging filters, in one batched request and over plain httpLink alike', async () => {
    const key = await app.newOrganizationKey();
    const client = clientFor(key);
    const alpha = await client.templates.create.mutate({ ...card, name: 'Alpha banner', tags: ['red', 'big'] });
    const beta = await client.templates.create.mutate({ ...card, name: 'Beta banner', tags: ['red'] });
    const gamma = await client.templates.create.mutate({ ...card, name: 'Gamma card', tags: ['blue'] });
    const names = (templates: { name: string }[]) => templates.map((template) => template.name).sort();

    const [all, none, banners, red, redAndBig, firstPage, secondPage] = await Promise.all([
      client.templates.list.query(),
      client.templates.list.query({ name: 'no such template' }),
      client.templates.list.query({ name: 'BANNER' }),
      client.templates.list.query({ tags: ['red'] }),
      client.templates.list.query({ tags: ['red', 'big'] }),
      client.templates.list.query({ size: 2, page: 0 }),
      client.templates.list.query({ size: 2, page: 1 }),
    ]);
    expect(names(all)).toEqual(['Alpha banner', 'Beta banner', 'Gamma card']);
    expect(none).toEqual([]);
    expect(names(banners)).toEqual(['Alpha banner', 'Beta banner']);
    expect(names(red)).toEqual(['Alpha banner', 'Beta banner']);
    expect(names(redAndBig)).toEqual(['Alpha banner']);
    expect(firstPage).toHaveLength(2);
    expect(secondPage).toHaveLength(1);
    expect(new Set([...firstPage, ...secondPage].map((template) => template.identifier))).toEqual(
      new Set([alpha.identifier, beta.identifier, gamma.identifier]),
    );

    const unbatched = clientFor(key, false);
    expect(names(await unbatched.templates.list.query({ tags: ['blue'] }))).toEqual(['Gamma card']);
    expect(await unbatched.templates.list.query({ sourceTemplateId: alpha.identifier })).toEqual([]);
  });

  it('updates only the supplied fields and replaces the tag set', async () => {
    const client = clientFor(app.apiKey);
    const created = await client.templates.create.mutate({ ...card, tags: ['a', 'b'] });
    const updated = await client.templates.update.mutate({ templateId: created.identifier, changes: { width: 800, tags: ['c'] } });
    expect(updated).toMatchObject({ name: 'Card', width: 800, height: 630, tags: ['c'], outputFormat: 'jpeg' });
    const png = await client.templates.update.mutate({ templateId: created.identifier, changes: { outputFormat: 'png', name: 'Card 2' } });
    expect(png).toMatchObject({ name: 'Card 2', outputFormat: 'png', outputExtension: '.png', width: 800, tags: ['c'] });
    expect(await client.templates.get.query({ templateId: created.identifier })).toEqual(png);
  });

  it('lists, reads, publishes and restores template versions', async () => {
    const client = clientFor(app.apiKey);
    const created = await client.templates.create.mutate(card);
    await client.templates.update.mutate({ templateId: created.identifier, changes: { width: 800 } });
    const versions = await client.templates.versions.query({ templateId: created.identifier });
    expect(versions.content.map((entry) => [entry.version, entry.changed])).toEqual([[2, ['settings']], [1, []]]);
    expect(await client.templates.version.query({ templateId: created.identifier, version: 1 })).toMatchObject({ version: 1, width: 1200 });
    expect(await client.templates.publish.mutate({ templateId: created.identifier, version: 1 })).toMatchObject({ version: 2, publishedVersion: 1 });
    expect(await client.templates.restore.mutate({ templateId: created.identifier, version: 1 })).toMatchObject({ version: 3, width: 1200, publishedVersion: 1 });
  });

  it('replaces and reads html-editor content, listing merge fields as properties', async () => {
    const client = clientFor(app.apiKey);
    const created = await client.templates.create.mutate(card);
    const content = { html: '<h1>{{title}}</h1><p>{{ subtitle }}</p>', css: 'h1 { color: red }', sampleData: { title: 'Hello' } };
    expect(await client.templates.putHtml.mutate({ templateId: created.identifier, content })).toEqual(content);
    expect(await client.templates.getHtml.query({ templateId: created.identifier })).toEqual(content);

    const template = await client.templates.get.query({ templateId: created.identifier });
    expect(template.properties.map((property) => property.key).sort()).toEqual(['subtitle', 'title']);
    expect(template.properties.find((property) => property.key === 'title')?.defaultValue).toBe('Hello');

    // css and sampleData are optional and default to empty.
    expect(await client.templates.putHtml.mutate({ templateId: created.identifier, content: { html: '<p>plain</p>' } })).toEqual({
      html: '<p>plain</p>',
      css: '',
      sampleData: {},
    });
  });

  it('deletes softly: the template is gone from get and list, and a second delete is NOT_FOUND', async () => {
    const client = clientFor(app.apiKey);
    const created = await client.templates.create.mutate({ ...card, name: 'Doomed' });
    expect(await client.templates.delete.mutate({ templateId: created.identifier })).toEqual({ deleted: true });
    await expectFailure(() => client.templates.get.query({ templateId: created.identifier }), 'NOT_FOUND', 404);
    expect((await client.templates.list.query({ name: 'Doomed' })).map((template) => template.identifier)).not.toContain(created.identifier);
    await expectFailure(() => client.templates.delete.mutate({ templateId: created.identifier }), 'NOT_FOUND', 404);
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    const client = clientFor(app.apiKey);
    const error = await expectFailure(() => client.templates.get.query({ templateId: 'does-not-exist' }), 'NOT_FOUND', 404);
    expect(error.data?.body.status).toBe(404);
  });
});

describe('tRPC typed client: authentication', () => {
  it('answers FORBIDDEN without a key, for queries and mutations', async () => {
    const anonymous = clientFor(null);
    const query = await expectFailure(() => anonymous.templates.list.query(), 'FORBIDDEN', 403);
    expect(query.data?.body).toEqual({ msg: expect.any(String), status: 403, errors: expect.any(Array) });
    await expectFailure(() => anonymous.templates.create.mutate(card), 'FORBIDDEN', 403);
    await expectFailure(() => anonymous.ping.query(), 'FORBIDDEN', 403);
  });

  it('answers FORBIDDEN for an invalid key and writes nothing', async () => {
    const before = await clientFor(app.apiKey).templates.list.query({ name: 'Sneaky', size: 50 });
    const forged = clientFor(`rk_${'x'.repeat(43)}`);
    await expectFailure(() => forged.templates.create.mutate({ ...card, name: 'Sneaky' }), 'FORBIDDEN', 403);
    await expectFailure(() => forged.templates.list.query(), 'FORBIDDEN', 403);
    expect(await clientFor(app.apiKey).templates.list.query({ name: 'Sneaky', size: 50 })).toEqual(before);
  });

  it('answers FORBIDDEN for a revoked key that worked before', async () => {
    const orgId = await app.services.accounts.openOrganization({ name: 'revocable' });
    const issued = await app.services.accounts.issueApiKey(orgId, { label: 'soon revoked' });
    const client = clientFor(issued.key);
    expect(await client.ping.query()).toEqual({ orgId });
    await app.services.accounts.revokeApiKey(orgId, issued.keyId);
    await expectFailure(() => client.ping.query(), 'FORBIDDEN', 403);
  });
});

describe('tRPC typed client: validation', () => {
  it('answers BAD_REQUEST with the REST error body listing every problem of the input', async () => {
    const client = clientFor(app.apiKey);
    const badInput = { name: '', width: 0, height: 5001, editor: 'word' };
    // @ts-expect-error the typed client rejects this input at compile time too; the server must reject it at run time.
    const error = await expectFailure(() => client.templates.create.mutate(badInput), 'BAD_REQUEST', 400);
    const body = error.data?.body;
    expect(body).toEqual({ msg: expect.any(String), status: 400, errors: expect.any(Array) });
    const errors = body?.errors.join('\n') ?? '';
    for (const field of ['name', 'width', 'height', 'editor']) expect(errors).toMatch(new RegExp(`\\b${field}\\b`));
    expect(body?.errors.length).toBeGreaterThanOrEqual(4);
    // Nothing internal (stack traces, zod class names) leaks into what the client reads.
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|ZodError/);
  });

  it('answers BAD_REQUEST for unknown fields and out-of-range list paging', async () => {
    const client = clientFor(app.apiKey);
    const extra = { ...card, unknownField: 1 };
    const unknown = await expectFailure(() => client.templates.create.mutate(extra), 'BAD_REQUEST', 400);
    expect(unknown.data?.body.errors.join('\n')).toMatch(/unknownField/);
    const paging = await expectFailure(() => client.templates.list.query({ size: 51 }), 'BAD_REQUEST', 400);
    expect(paging.data?.body).toMatchObject({ status: 400, errors: [expect.stringMatching(/size/)] });
  });

  it('answers BAD_REQUEST for domain rule violations, in the same body shape', async () => {
    const client = clientFor(app.apiKey);
    const fps = await expectFailure(() => client.templates.create.mutate({ ...card, fps: 30 }), 'BAD_REQUEST', 400);
    expect(fps.data?.body.errors.join('\n')).toMatch(/recordDuration and fps/);

    const canvas = await client.templates.create.mutate({ ...card, editor: 'canvas-editor' });
    await expectFailure(() => client.templates.getHtml.query({ templateId: canvas.identifier }), 'BAD_REQUEST', 400);
    await expectFailure(() => client.templates.putHtml.mutate({ templateId: canvas.identifier, content: { html: '<p>x</p>' } }), 'BAD_REQUEST', 400);
    await expectFailure(() => client.templates.update.mutate({ templateId: canvas.identifier, changes: { width: -5 } }), 'BAD_REQUEST', 400);
    // The rejected update changed nothing.
    expect((await client.templates.get.query({ templateId: canvas.identifier })).width).toBe(1200);
  });
});

describe('tRPC typed client: organization scoping', () => {
  it("treats another organization's template as NOT_FOUND for every use case and never lists it", async () => {
    const owner = clientFor(app.apiKey);
    const stranger = clientFor(await app.newOrganizationKey());
    const mine = await owner.templates.create.mutate({ ...card, name: 'Private to the owner' });
    const templateId = mine.identifier;

    await expectFailure(() => stranger.templates.get.query({ templateId }), 'NOT_FOUND', 404);
    await expectFailure(() => stranger.templates.getHtml.query({ templateId }), 'NOT_FOUND', 404);
    await expectFailure(() => stranger.templates.update.mutate({ templateId, changes: { name: 'hijacked' } }), 'NOT_FOUND', 404);
    await expectFailure(() => stranger.templates.putHtml.mutate({ templateId, content: { html: '<p>hijacked</p>' } }), 'NOT_FOUND', 404);
    await expectFailure(() => stranger.templates.delete.mutate({ templateId }), 'NOT_FOUND', 404);
    expect((await stranger.templates.list.query({ size: 50 })).map((template) => template.identifier)).not.toContain(templateId);

    // The owner's template is untouched by every attempt.
    expect(await owner.templates.get.query({ templateId })).toEqual(mine);
    expect(await owner.templates.getHtml.query({ templateId })).toEqual({ html: '', css: '', sampleData: {} });
  });
});
