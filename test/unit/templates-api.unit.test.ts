import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';
import { expectError } from '../support/expect-error.js';

/*
 * The templates API over the in-memory world: the same express app, route table and use cases as
 * `npm start`, on the in-memory event store and read models. What only PostgreSQL's read models
 * show (the list's filters, tenant scoping of their queries, what the tables store) is in
 * test/e2e/templates.e2e.test.ts.
 */

let app: InMemoryApp;
beforeAll(async () => {
  app = await startInMemoryApp();
});
afterAll(async () => {
  await app?.close();
});

const create = async (body: Record<string, unknown> = {}) => {
  const response = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Card', width: 1200, height: 630, editor: 'html-editor', ...body } });
  expect(response.status).toBe(200);
  return response.body;
};

describe('POST /api/v2/my-templates', () => {
  it('creates a template with every spec field and its defaults, readable at once', async () => {
    const template = await create({ tags: ['social', 'og'] });
    expect(template).toMatchObject({
      name: 'Card',
      width: 1200,
      height: 630,
      editor: 'html-editor',
      outputFormat: 'jpeg',
      outputExtension: '.jpg',
      quality: 80,
      scaleFactor: 1,
      createdBy: 'API',
      properties: [],
      fonts: [],
      tags: ['social', 'og'],
    });
    expect(template).not.toHaveProperty('recordDuration');
    const read = await app.call('GET', `/api/v2/my-templates/${template.identifier}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(template);
  });

  it('gives canvas-html templates the video defaults', async () => {
    const template = await create({ editor: 'canvas-html', outputFormat: 'mp4' });
    expect(template).toMatchObject({ outputFormat: 'mp4', outputExtension: '.mp4', recordDuration: 5000, fps: 30 });
  });

  it.each([
    [{ name: '' }, /body\.name/],
    [{ width: 0 }, /body\.width/],
    [{ height: 5001 }, /body\.height/],
    [{ width: 10.5 }, /body\.width/],
    [{ editor: 'word' }, /body\.editor/],
    [{ outputFormat: 'bmp' }, /body\.outputFormat/],
    [{ quality: 9 }, /body\.quality/],
    [{ quality: 101 }, /body\.quality/],
    [{ editor: 'canvas-html', recordDuration: 999 }, /body\.recordDuration/],
    [{ editor: 'canvas-html', recordDuration: 30001 }, /body\.recordDuration/],
    [{ editor: 'canvas-html', fps: 60 }, /body\.fps/],
    [{ outputFormat: 'mp4' }, /canvas-html/],
    [{ fps: 30 }, /recordDuration and fps/],
    [{ unknownField: 1 }, /unknownField/],
  ])('answers 400 for %j', async (override, pattern) => {
    const response = await app.call('POST', '/api/v2/my-templates', {
      body: { name: 'Card', width: 100, height: 100, editor: 'html-editor', ...override },
    });
    expectError(response, 400, pattern);
  });

  it('lists every problem of a body at once', async () => {
    const response = await app.call('POST', '/api/v2/my-templates', { body: { width: -1 } });
    expectError(response, 400);
    expect(response.body.errors.length).toBeGreaterThanOrEqual(4);
  });

  it('answers 400 for malformed JSON and 413 for a body over the limit', async () => {
    expectError(await app.call('POST', '/api/v2/my-templates', { rawBody: '{"name": ' }), 400, /body/);
    const huge = JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024), width: 1, height: 1, editor: 'html-editor' });
    expectError(await app.call('POST', '/api/v2/my-templates', { rawBody: huge }), 413);
  });
});

describe('POST /api/v1/templates', () => {
  it('creates a template', async () => {
    const response = await app.call('POST', '/api/v1/templates', { body: { name: 'Old', width: 300, height: 200, editor: 'canvas-editor' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Old', editor: 'canvas-editor', outputFormat: 'jpeg' });
  });

  it('does not take the v2-only fields', async () => {
    const response = await app.call('POST', '/api/v1/templates', { body: { name: 'Old', width: 300, height: 200, editor: 'canvas-html', fps: 25 } });
    expectError(response, 400, /fps/);
  });
});

describe('GET /api/v2/my-templates', () => {
  it.each(['?size=51', '?size=0', '?page=-1', '?size=abc'])('answers 400 for %s', async (query) => {
    expectError(await app.call('GET', `/api/v2/my-templates${query}`), 400, /query\./);
  });
});

describe('PATCH /api/v2/my-templates/{id}', () => {
  it('changes only the supplied fields and replaces the tag set', async () => {
    const template = await create({ tags: ['a', 'b'] });
    const response = await app.call('PATCH', `/api/v2/my-templates/${template.identifier}`, { body: { width: 800, tags: ['c'] } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Card', width: 800, height: 630, tags: ['c'], outputFormat: 'jpeg' });
    const png = await app.call('PATCH', `/api/v2/my-templates/${template.identifier}`, { body: { outputFormat: 'png' } });
    expect(png.body).toMatchObject({ outputFormat: 'png', outputExtension: '.png', width: 800 });
    expect((await app.call('GET', `/api/v2/my-templates/${template.identifier}`)).body).toEqual(png.body);
  });

  it.each([[{ outputFormat: 'mp4' }], [{ outputFormat: 'webp' }], [{ width: 0 }], [{ name: '' }], [{ editor: 'canvas-html' }], [{ tags: 'x' }]])(
    'answers 400 for %j and changes nothing',
    async (body) => {
      const template = await create();
      expectError(await app.call('PATCH', `/api/v2/my-templates/${template.identifier}`, { body }), 400);
      expect((await app.call('GET', `/api/v2/my-templates/${template.identifier}`)).body).toEqual(template);
    },
  );

  it('answers 404 for an unknown template', async () => {
    expectError(await app.call('PATCH', '/api/v2/my-templates/nope', { body: { name: 'x' } }), 404);
  });
});

describe('DELETE /api/v2/my-templates/{id}', () => {
  it('soft-deletes: 200, then 404 everywhere', async () => {
    const template = await create();
    const deleted = await app.call('DELETE', `/api/v2/my-templates/${template.identifier}`);
    expect(deleted.status).toBe(200);
    expectError(await app.call('GET', `/api/v2/my-templates/${template.identifier}`), 404);
    expectError(await app.call('PATCH', `/api/v2/my-templates/${template.identifier}`, { body: { name: 'x' } }), 404);
    expectError(await app.call('GET', `/api/v2/my-templates/${template.identifier}/html-editor`), 404);
    expectError(await app.call('DELETE', `/api/v2/my-templates/${template.identifier}`), 404);
    const events = await app.eventStore.readStream(`template-${template.identifier}`);
    expect(events.map((event) => event.type)).toEqual(['TemplateCreated', 'TemplateDeleted']);
  });
});

describe('html-editor content', () => {
  it('starts empty, persists what is put and lists merge fields as properties', async () => {
    const template = await create();
    const empty = await app.call('GET', `/api/v2/my-templates/${template.identifier}/html-editor`);
    expect(empty.body).toEqual({ html: '', css: '', sampleData: {} });

    const content = { html: '<h1>{{title}}</h1><div>{{{body}}}</div>{{#items}}{{name}}{{/items}}', css: 'h1{color:red}', sampleData: { title: 'Hello' } };
    const put = await app.call('PUT', `/api/v2/my-templates/${template.identifier}/html-editor`, { body: content });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(content);
    expect((await app.call('GET', `/api/v2/my-templates/${template.identifier}/html-editor`)).body).toEqual(content);

    const read = (await app.call('GET', `/api/v2/my-templates/${template.identifier}`)).body;
    expect(read.properties.map((property: { key: string }) => property.key)).toEqual(['title', 'body', 'items', 'name']);
    expect(read.properties[0]).toEqual({ key: 'title', type: 'text', defaultValue: 'Hello', componentId: 'html', componentType: 'HTML', property: 'title', locked: false });
  });

  it('defaults css and sampleData when omitted', async () => {
    const template = await create();
    const put = await app.call('PUT', `/api/v2/my-templates/${template.identifier}/html-editor`, { body: { html: '<p>x</p>' } });
    expect(put.body).toEqual({ html: '<p>x</p>', css: '', sampleData: {} });
  });

  it('is a 400 for canvas templates, both ways', async () => {
    for (const editor of ['canvas-editor', 'canvas-html']) {
      const template = await create({ editor });
      expectError(await app.call('GET', `/api/v2/my-templates/${template.identifier}/html-editor`), 400, /html-editor/);
      expectError(await app.call('PUT', `/api/v2/my-templates/${template.identifier}/html-editor`, { body: { html: '<p/>' } }), 400, /html-editor/);
    }
  });

  it.each([[{}], [{ html: '' }], [{ html: '<p/>', sampleData: [1] }], [{ html: '<p/>', css: 5 }], [{ html: '{{#open}}' }]])(
    'answers 400 for %j',
    async (body) => {
      const template = await create();
      expectError(await app.call('PUT', `/api/v2/my-templates/${template.identifier}/html-editor`, { body }), 400);
    },
  );
});

describe('authentication and scoping', () => {
  it('answers 403 without a key or with a wrong one', async () => {
    expectError(await app.call('GET', '/api/v2/my-templates', { key: null }), 403, /API key/);
    expectError(await app.call('GET', '/api/v2/my-templates', { key: 'rk_wrong' }), 403, /Invalid API key/);
    expectError(await app.call('POST', '/api/v1/templates', { key: null, body: {} }), 403);
  });

  it('rejects a revoked key', async () => {
    const orgId = await app.services.accounts.openOrganization({ name: 'revokes' });
    const issued = await app.services.accounts.issueApiKey(orgId, { label: 'short-lived' });
    expect((await app.call('GET', '/api/v2/my-templates', { key: issued.key })).status).toBe(200);
    await app.services.accounts.revokeApiKey(orgId, issued.keyId);
    expectError(await app.call('GET', '/api/v2/my-templates', { key: issued.key }), 403);
  });

});

describe('service endpoints', () => {
  it('answers 404 in the error shape for unknown routes', async () => {
    expectError(await app.call('GET', '/api/v2/unknown'), 404);
    expectError(await app.call('GET', '/nothing-here', { key: null }), 404);
  });

  it('reports health', async () => {
    const response = await app.call('GET', '/healthz', { key: null });
    expect(response.status).toBe(200);
    expect(response.body.ok).toBe(true);
  });

  it('serves an OpenAPI 3.1 document built from the schemas', async () => {
    const response = await app.call('GET', '/openapi.json', { key: null });
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining(['/api/v2/my-templates', '/api/v1/templates', '/api/v2/my-templates/{templateId}', '/api/v2/my-templates/{templateId}/html-editor']),
    );
    const quality = response.body.components.schemas.CreateTemplateRequest.properties.quality;
    expect(quality).toMatchObject({ minimum: 10, maximum: 100 });
  });

  it('echoes a request id', async () => {
    const response = await app.call('GET', '/api/v2/my-templates', { headers: { 'x-request-id': 'req-123' } });
    expect(response.headers.get('x-request-id')).toBe('req-123');
  });
});
