import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '../../interfaces/http/operations/all-operations.js';
import { openApiDocument } from '../../interfaces/rest/openapi.js';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';

/**
 * The route table (interfaces/http/operations) is the one declaration of the API: every operation
 * in it is served at its method and path, and the document lists exactly its operations.
 */
let app: InMemoryApp;

beforeAll(async () => {
  app = await startInMemoryApp();
});
afterAll(async () => app?.close());

/** A path of the operation with each parameter filled in (an unknown id: the route answers, the use case says 404). */
const concretePath = (path: string) => path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'version' ? '1' : `no-such-${name}`));

describe('the route table', () => {
  it('declares each operation once: an operationId and a method and path of its own', () => {
    expect(new Set(ALL_OPERATIONS.map((operation) => operation.id)).size).toBe(ALL_OPERATIONS.length);
    expect(new Set(ALL_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`)).size).toBe(ALL_OPERATIONS.length);
  });

  it('is what the OpenAPI document lists, operation for operation', () => {
    const documented = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item ?? {}).map(([method, operation]) => `${method} ${path} ${(operation as { operationId: string }).operationId}`),
    );
    expect(documented.sort()).toEqual(ALL_OPERATIONS.map((operation) => `${operation.method} ${operation.path} ${operation.id}`).sort());
  });

  it.each(ALL_OPERATIONS.map((operation) => [operation.id, operation] as const))('serves %s at its method and path', async (_id, operation) => {
    const { status, body } = await app.call(operation.method.toUpperCase(), concretePath(operation.path));
    // Whatever the use case answers to an empty request for nothing, the answer is not the router's.
    expect(JSON.stringify(body ?? '')).not.toContain('No route for');
    expect(status).not.toBe(405);
  });

  it('answers a method the table does not declare for a path with the router 404', async () => {
    const { status, body } = await app.call('PUT', '/api/v2/results');
    expect(status).toBe(404);
    expect(JSON.stringify(body)).toContain('No route for PUT /api/v2/results');
  });
});
