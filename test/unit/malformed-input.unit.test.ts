import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInMemoryApp, type InMemoryApp } from '../support/in-memory-app.js';

/*
 * Input no route can use is refused in one place, before any route runs: a 400 (or 413) in the
 * spec's error shape, and nothing written. Each of these answered 500 before. Over the in-memory world: the same express app as `npm start`.
 */

let app: InMemoryApp;

beforeAll(async () => {
  app = await startInMemoryApp();
});

afterAll(async () => {
  await app?.close();
});

const expectClientError = (answer: { status: number; body: any }, pattern: RegExp) => {
  expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(500);
  expect(answer.body).toMatchObject({ status: answer.status, msg: expect.any(String), errors: expect.any(Array) });
  expect(answer.body.errors.join(' ')).toMatch(pattern);
};

const templateCount = async () => (await app.call('GET', '/api/v2/my-templates?size=50')).body.length as number;

describe('malformed input', () => {
  it.each([
    ['a files path', '/files/%E0%A4%A/card.jpg'],
    ['an API path', '/api/v2/my-templates/%zz'],
    ['an API path, without a key', '/api/v2/results/%'],
  ])('refuses malformed percent-encoding in %s', async (_what, pathname) => {
    const answer = await app.call('GET', pathname, { key: pathname.includes('without') ? null : undefined });
    expectClientError(answer, /percent-encoding/);
  });

  it('refuses NUL characters in a path, a query and a body, and writes nothing', async () => {
    const before = await templateCount();
    expectClientError(await app.call('GET', '/api/v2/my-templates/tpl%00x'), /NUL/);
    expectClientError(await app.call('GET', '/api/v2/my-templates?name=a%00b'), /NUL/);
    expectClientError(await app.call('POST', '/api/v2/my-templates', { body: { name: 'a\u0000b', width: 10, height: 10, editor: 'html-editor' } }), /body\.name.*NUL/);
    expect(await templateCount()).toBe(before);
  });

  it('refuses lone UTF-16 surrogates anywhere in a body', async () => {
    const rawBody = '{"name":"ok","width":10,"height":10,"editor":"html-editor","tags":["\\ud800"]}';
    expectClientError(await app.call('POST', '/api/v2/my-templates', { rawBody }), /body\.tags\[0\].*surrogate/);
  });

  it('refuses documents nested deeper than any request needs', async () => {
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const answer = await app.call('POST', '/api/v2/render', { rawBody: `{"template":"x","data":${deep}}` });
    expectClientError(answer, /nested deeper/);
  });

  it('refuses a body in an unsupported charset or a gzip body that is not gzip', async () => {
    const charset = await app.call('POST', '/api/v2/my-templates', { rawBody: '{}', headers: { 'content-type': 'application/json; charset=ebcdic' } });
    expectClientError(charset, /charset/);
    const gzip = await app.call('POST', '/api/v2/my-templates', { rawBody: 'not gzip at all', headers: { 'content-encoding': 'gzip' } });
    expectClientError(gzip, /./);
    const encoding = await app.call('POST', '/api/v2/my-templates', { rawBody: '{}', headers: { 'content-encoding': 'snappy' } });
    expectClientError(encoding, /encoding/);
  });
});
