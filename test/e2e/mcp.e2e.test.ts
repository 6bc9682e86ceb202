import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/*
 * The MCP server at /mcp on the whole stack (PostgreSQL, Temporal, Chromium), driven by the official
 * SDK's client over Streamable HTTP: the tools and their schemas, a render answered by href and
 * inline, a validation that charges nothing, keys and scopes refused as REST refuses them, tenancy,
 * and a batch followed to its end.
 */

let app: TestApp;
let cardId: string;
const clients: Client[] = [];

const TOOLS = [
  'list_templates',
  'get_template',
  'render',
  'validate_render',
  'list_results',
  'get_result',
  'take_screenshot',
  'create_pdf_from_url',
  'get_usage',
  'submit_batch',
  'get_batch',
  'list_batches',
  'cancel_batch',
];

/** A client of the app's /mcp, authenticated by `x-api-key` or, as MCP clients usually are, `Authorization: Bearer`. */
const connect = async (key: string, as: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> => {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const headers: Record<string, string> = as === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
};

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;

/** The JSON of a tool's first text content: its answer, or the error body of a refusal. */
const jsonOf = (result: CallToolResult): any => {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`no text content in ${JSON.stringify(result).slice(0, 200)}`);
  return JSON.parse(first.text);
};

/** An answer the tool gave without error. */
const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
  return jsonOf(result);
};

/** A refusal: isError with the REST error body. */
const refused = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  return jsonOf(result) as { msg: string; status: number; errors: string[] };
};

/** An href of the service, fetched from the port this test's service listens on (its public base URL names another). */
const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

/** A page of the test's own, on loopback, which the app is told it may capture. */
let page: Server;
let pageUrl: string;

beforeAll(async () => {
  page = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><html><body style="margin:0;background:#ff0000"><h1>captured</h1></body></html>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'MCP card', width: 160, height: 90, editor: 'html-editor', outputFormat: 'png' } });
  expect(created.status).toBe(200);
  cardId = created.body.identifier;
  const put = await app.call('PUT', `/api/v2/my-templates/${cardId}/html-editor`, {
    body: { html: '<div style="width:160px;height:90px;background:{{bg}}"><b>{{title}}</b> {{subtitle}}</div>', css: 'body{margin:0}', sampleData: { bg: 'teal' } },
  });
  expect(put.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await app?.close();
  await new Promise((resolve) => page?.close(resolve));
});

describe('the MCP server', () => {
  it('lists its tools, each with an input schema from the REST schemas', async () => {
    const client = await connect(app.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['render', 'validate_render']) {
      const schema = byName.get(name)?.inputSchema;
      expect(schema?.type).toBe('object');
      expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['template', 'data', 'outputFormat', 'width', 'height', 'version', 'templateVersion']));
      expect(schema?.required).toEqual(['template']);
    }
    expect(Object.keys(byName.get('render')?.inputSchema.properties ?? {})).toContain('inline');
    expect(Object.keys(byName.get('submit_batch')?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['template', 'rows']));
    expect(byName.get('get_template')?.inputSchema.required).toEqual(['templateId']);
  });

  it('answers a template with the keys its data takes', async () => {
    const client = await connect(app.apiKey);
    const listed = await ok(client, 'list_templates', { name: 'MCP card' });
    expect(listed.map((template: { identifier: string }) => template.identifier)).toEqual([cardId]);
    const template = await ok(client, 'get_template', { templateId: cardId });
    expect(template.properties.map((property: { key: string }) => property.key).sort()).toEqual(['bg', 'subtitle', 'title']);
    expect(template.properties.find((property: { key: string }) => property.key === 'bg')).toMatchObject({ type: 'text', defaultValue: 'teal' });
  });

  it('renders a png template: its href is the PNG, and inline the image itself', async () => {
    const client = await connect(app.apiKey, 'bearer');
    const rendered = await ok(client, 'render', { template: cardId, data: { title: 'Hello', bg: 'red' } });
    expect(rendered).toEqual({ requestId: expect.any(String), href: expect.stringContaining(rendered.requestId) });
    const file = await download(rendered.href);
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/png');
    expect(file.bytes.subarray(1, 4).toString()).toBe('PNG');

    const inline = await call(client, 'render', { template: cardId, data: { title: 'Inline', bg: 'blue' }, inline: true });
    expect(inline.isError).toBeFalsy();
    expect(jsonOf(inline)).toMatchObject({ requestId: expect.any(String), href: expect.any(String) });
    const image = inline.content.find((content) => content.type === 'image');
    if (image?.type !== 'image') throw new Error(`no image content: ${JSON.stringify(inline.content).slice(0, 300)}`);
    expect(image.mimeType).toBe('image/png');
    const metadata = await sharp(Buffer.from(image.data, 'base64')).metadata();
    expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({ format: 'png', width: 160, height: 90 });
  });

  it('takes a screenshot of a page, charged one credit', async () => {
    const client = await connect(app.apiKey);
    const used = await creditsUsed();
    const shot = await ok(client, 'take_screenshot', { url: pageUrl, width: 320, height: 200 });
    const file = await download(shot.href);
    expect(file.type).toBe('image/png');
    const { data, info } = await sharp(file.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([320, 200]);
    // The page's red background, below its heading.
    const at = (190 * info.width + 300) * info.channels;
    expect([data[at], data[at + 1], data[at + 2]]).toEqual([255, 0, 0]);
    expect(await creditsUsed()).toBe(used + 1);
  });

  it('validates data without rendering or charging: an unknown key is named, a merge field left out is listed', async () => {
    const client = await connect(app.apiKey);
    const used = await creditsUsed();
    const results = (await app.call('GET', '/api/v2/results')).body.totalElements as number;

    const bad = await ok(client, 'validate_render', { template: cardId, data: { title: 'x', colour: 'red' } });
    expect(bad.valid).toBe(false);
    expect(bad.problems).toEqual(['colour: the template has no merge field colour']);
    expect(bad.missing).toEqual([
      { key: 'bg', defaultValue: 'teal' },
      { key: 'subtitle', defaultValue: '' },
    ]);
    const good = await ok(client, 'validate_render', { template: cardId, data: { title: 'x', subtitle: 'y', bg: 'red' } });
    expect(good).toEqual({ valid: true, template: cardId, templateVersion: 2, problems: [], missing: [], credits: 1 });

    expect(await creditsUsed()).toBe(used);
    expect((await app.call('GET', '/api/v2/results')).body.totalElements).toBe(results);
  });

  it('checks canvas values as a render does', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'MCP canvas', width: 200, height: 100, editor: 'canvas-editor', outputFormat: 'png' } });
    const components = [
      { id: 'title', type: 'TEXT', x: 0, y: 0, width: 200, height: 50, text: 'Hi' },
      { id: 'badge', type: 'RECTANGLE', x: 0, y: 50, width: 50, height: 50, locked: true },
    ];
    expect((await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/components`, { body: { components } })).status).toBe(200);
    const client = await connect(app.apiKey);
    const checked = await ok(client, 'validate_render', { template: created.body.identifier, data: { 'title.text': 'Hello', 'title.fontSize': 5000, 'badge.fill': '#ff0000' } });
    expect(checked.valid).toBe(false);
    expect(checked.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^title\.fontSize: /), "badge.fill: component 'badge' is locked"]));
    expect(checked.problems).toHaveLength(2);
    expect(checked.missing).toEqual([]);
  });

  it('refuses a render-only key list_templates as REST does', async () => {
    const caller = await app.runtime.services.accounts.authenticate(app.apiKey);
    if (!caller) throw new Error('the bootstrap key does not authenticate');
    const { key } = await app.runtime.services.accounts.issueApiKey(caller.orgId, { label: 'render only', scopes: ['render'] });
    const rest = await app.call('GET', '/api/v2/my-templates', { key });
    expect(rest.status).toBe(403);

    const client = await connect(key);
    expect(await refused(client, 'list_templates')).toEqual(rest.body);
    // What the key may do, it does: check a render as it would render it, read its usage.
    expect(await ok(client, 'validate_render', { template: cardId, data: { title: 'x' } })).toMatchObject({ valid: true, credits: 1 });
    expect((await ok(client, 'get_usage')).credits.used).toEqual(expect.any(Number));
  });

  it('refuses a request without a valid key as REST does', async () => {
    const rest = await app.call('GET', '/api/v2/my-templates', { key: null });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${app.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

    const none = await post({});
    expect(none.status).toBe(rest.status);
    expect(await none.json()).toEqual(rest.body);
    const wrong = await post({ authorization: 'Bearer rk_not_a_key' });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).msg).toBe('Invalid API key');
    await expect(connect('rk_not_a_key', 'bearer')).rejects.toThrow();
    // Stateless: no event stream to open.
    const get = await fetch(`${app.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': app.apiKey } });
    expect(get.status).toBe(405);
    expect((await get.json()).status).toBe(405);
  });

  it("does not find another organization's template", async () => {
    const other = await connect(await app.newOrganizationKey());
    const read = await refused(other, 'get_template', { templateId: cardId });
    expect(read).toEqual((await app.call('GET', `/api/v2/my-templates/${cardId}`, { key: await app.newOrganizationKey() })).body);
    expect(read.status).toBe(404);
    const render = await refused(other, 'render', { template: cardId, data: { title: 'x' } });
    expect(render).toMatchObject({ status: 400, msg: `Template ${cardId} not found` });
    expect(await ok(other, 'list_templates')).toEqual([]);
  });

  it('answers bad arguments as a tool error', async () => {
    const client = await connect(app.apiKey);
    const result = await call(client, 'render', { template: cardId, outputFormat: 'bmp' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('outputFormat');
  });

  it('submits a batch of JSON rows and follows it to done', async () => {
    const client = await connect(app.apiKey);
    const submitted = await ok(client, 'submit_batch', {
      template: cardId,
      name: 'mcp-batch',
      rows: [{ data: { title: 'Ada' }, fileName: 'ada' }, { data: { title: 'Grace' } }],
    });
    expect(submitted).toMatchObject({ identifier: expect.any(String), name: 'mcp-batch', status: 'pending', total: 2 });
    const done = await waitFor(
      'the batch to end',
      async () => {
        const batch = await ok(client, 'get_batch', { identifier: submitted.identifier });
        return batch.finishedAt ? batch : undefined;
      },
      120_000,
    );
    expect(done).toMatchObject({ status: 'done', total: 2, done: 2, failed: 0 });
    const listed = await ok(client, 'list_batches', {});
    expect(listed.content.map((batch: { identifier: string }) => batch.identifier)).toContain(submitted.identifier);
    const rows = await ok(client, 'list_results', { batch: 'mcp-batch' });
    expect(rows.totalElements).toBe(2);
    const row = await ok(client, 'get_result', { identifier: rows.content[0].identifier });
    expect(row).toMatchObject({ status: 'done', batch: 'mcp-batch' });

    const bad = await refused(client, 'submit_batch', { template: cardId, rows: [{ data: { titel: 'x' } }] });
    expect(bad).toMatchObject({ status: 400, errors: ['row 1: titel: the template has no merge field titel'] });
  }, 180_000);
});

describe('MCP requests under the key limits and logs of REST', () => {
  let limited: TestApp;
  const logLines: string[] = [];

  beforeAll(async () => {
    limited = await startTestApp({ env: { RATE_LIMIT_DEFAULT: '4', RATE_LIMIT_WINDOW_SECONDS: '60' }, logLines });
  });
  afterAll(async () => {
    await limited?.close();
  });

  const toolCall = (key: string, id: number) =>
    fetch(`${limited.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_usage', arguments: {} } }),
    });

  it('counts each MCP request with the same key as its REST requests, then answers 429 in the error shape', async () => {
    const key = await limited.newOrganizationKey();
    expect((await limited.call('GET', '/api/v1/usage', { key })).status).toBe(200);
    for (let id = 1; id <= 3; id++) {
      const answer = await toolCall(key, id);
      expect(answer.status).toBe(200);
      const body = await answer.json();
      expect(body.result.isError).toBeFalsy();
      expect(JSON.parse(body.result.content[0].text).identifier).toEqual(expect.any(String));
    }
    const refused = await toolCall(key, 4);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ status: 429, msg: 'Too many requests', errors: [expect.stringMatching(/4 requests per 60 s/)] });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.call('GET', '/api/v1/usage', { key })).status).toBe(429);
  });

  it('logs each MCP request under its id with organization and key, and each tool call with its tool, never the key', async () => {
    const key = await limited.newOrganizationKey();
    const caller = await limited.runtime.services.accounts.authenticate(key);
    const answer = await toolCall(key, 1);
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id');
    const lines = await waitFor('the request line', () => {
      const parsed = logLines.map((line) => JSON.parse(line)).filter((line) => line.reqId === requestId);
      return parsed.some((line) => line.msg === 'request completed') ? parsed : undefined;
    });
    expect(lines.find((line) => line.msg === 'request completed')).toMatchObject({ orgId: caller?.orgId, keyId: caller?.actor, req: { method: 'POST', url: '/mcp' }, res: { statusCode: 200 } });
    expect(lines.find((line) => line.msg === 'mcp tool call')).toMatchObject({ tool: 'get_usage', status: 200 });
    expect(logLines.some((line) => line.includes(key))).toBe(false);
  });
});
