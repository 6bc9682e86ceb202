import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../generated/api-types.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A client generated from the OpenAPI document (openapi-typescript types, openapi-fetch calls),
 * type-checked by `npm run check` and making real calls: the document is what generators need.
 */
let app: TestApp;
let client: ReturnType<typeof createClient<paths>>;

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  client = createClient<paths>({ baseUrl: app.url, headers: { 'x-api-key': app.apiKey } });
});
afterAll(async () => app?.close());

describe('a client generated from /openapi.json', () => {
  it('creates a template, fills it, renders it and reads the result, typed end to end', async () => {
    const created = await client.POST('/api/v2/my-templates', { body: { name: 'Generated', width: 320, height: 160, editor: 'html-editor' } });
    expect(created.response.status).toBe(200);
    const templateId = created.data?.identifier ?? '';
    expect(created.data?.editor).toBe('html-editor');

    const content = await client.PUT('/api/v2/my-templates/{templateId}/html-editor', {
      params: { path: { templateId } },
      body: { html: '<h1>{{title}}</h1>', sampleData: { title: 'Typed' } },
    });
    expect(content.data?.html).toBe('<h1>{{title}}</h1>');

    const rendered = await client.POST('/api/v2/render', { params: { query: { output: 'json' } }, body: { template: templateId, data: { title: 'Hi' } } });
    expect(rendered.response.status).toBe(200);
    // The operation answers JSON or, with output=image, the file: a client tells them apart.
    const answer = rendered.data;
    if (typeof answer !== 'object') throw new Error(`expected the JSON answer, got ${typeof answer}`);
    const { requestId, href } = answer;
    expect(href).toContain(requestId);

    const result = await client.GET('/api/v2/results/{identifier}', { params: { path: { identifier: requestId } } });
    expect(result.data).toMatchObject({ identifier: requestId, status: 'done' });
    const page = await client.GET('/api/v2/results', { params: { query: { size: 5 } } });
    expect(page.data?.content.map((item) => item.identifier)).toContain(requestId);
    const usage = await client.GET('/api/v1/usage');
    expect(usage.data?.credits.used).toBeGreaterThan(0);
  });

  it('gets errors in the documented shape', async () => {
    const missing = await client.GET('/api/v2/my-templates/{templateId}', { params: { path: { templateId: 'no-such-template' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ status: 404, msg: expect.any(String), errors: expect.any(Array) });
  });
});
