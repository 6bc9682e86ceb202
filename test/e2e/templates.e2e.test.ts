import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { expectError } from '../support/expect-error.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

/*
 * What only the service's PostgreSQL read models show; the rest of the templates API runs over the
 * in-memory world in test/unit/templates-api.unit.test.ts.
 */
describe('GET /api/v2/my-templates', () => {
  it('filters by name, tags and page, and never shows deleted templates', async () => {
    const key = await app.newOrganizationKey();
    const make = async (name: string, tags: string[]) =>
      (await app.call('POST', '/api/v2/my-templates', { key, body: { name, width: 10, height: 10, editor: 'html-editor', tags } })).body;
    const alpha = await make('Alpha banner', ['red', 'big']);
    const beta = await make('Beta banner', ['red']);
    const gamma = await make('Gamma_card 100%', ['blue']);
    const list = (query: string) => app.call('GET', `/api/v2/my-templates${query}`, { key });

    const names = async (query: string) => (await list(query)).body.map((template: { name: string }) => template.name).sort();
    expect(await names('')).toEqual(['Alpha banner', 'Beta banner', 'Gamma_card 100%']);
    expect(await names('?name=BANNER')).toEqual(['Alpha banner', 'Beta banner']);
    expect(await names('?name=100%25')).toEqual(['Gamma_card 100%']);
    // '_' is literal, not a one-character wildcard that would match "Alpha banner".
    expect(await names('?name=a_b')).toEqual([]);
    expect(await names('?tags=red')).toEqual(['Alpha banner', 'Beta banner']);
    expect(await names('?tags=red&tags=big')).toEqual(['Alpha banner']);
    expect(await names('?tags=red,big')).toEqual(['Alpha banner']);
    expect(await names(`?sourceTemplateId=${alpha.identifier}`)).toEqual([]);

    const firstPage = (await list('?size=2&page=0')).body;
    const secondPage = (await list('?size=2&page=1')).body;
    expect(firstPage).toHaveLength(2);
    expect(secondPage).toHaveLength(1);
    expect(new Set([...firstPage, ...secondPage].map((template: { identifier: string }) => template.identifier)).size).toBe(3);

    expect((await app.call('DELETE', `/api/v2/my-templates/${beta.identifier}`, { key })).status).toBe(200);
    expect(await names('?tags=red')).toEqual(['Alpha banner']);
    expect(gamma.identifier).toBeTruthy();
  });

});

describe('authentication and scoping', () => {
  it("hides another organization's templates as 404 and never lists them", async () => {
    const template = (await app.call('POST', '/api/v2/my-templates', { body: { name: 'Mine', width: 100, height: 100, editor: 'html-editor' } })).body;
    const other = await app.newOrganizationKey();
    expectError(await app.call('GET', `/api/v2/my-templates/${template.identifier}`, { key: other }), 404);
    expectError(await app.call('PATCH', `/api/v2/my-templates/${template.identifier}`, { key: other, body: { name: 'x' } }), 404);
    expectError(await app.call('DELETE', `/api/v2/my-templates/${template.identifier}`, { key: other }), 404);
    expectError(await app.call('PUT', `/api/v2/my-templates/${template.identifier}/html-editor`, { key: other, body: { html: '<p/>' } }), 404);
    expect((await app.call('GET', '/api/v2/my-templates', { key: other })).body).toEqual([]);
    expect((await app.call('GET', `/api/v2/my-templates/${template.identifier}`)).body.name).toBe('Mine');
  });

  it('stores only the hash of a key', async () => {
    const rows = (await app.runtime.orm.em.getConnection().execute('select hash from api_keys')) as { hash: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row: { hash: string }) => /^[0-9a-f]{64}$/.test(row.hash) && row.hash !== app.apiKey)).toBe(true);
    const events = await app.runtime.eventStore.readAll({ after: null, limit: 1000 });
    expect(JSON.stringify(events)).not.toContain(app.apiKey);
  });
});
