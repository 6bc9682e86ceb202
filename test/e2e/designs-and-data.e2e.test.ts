import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Text fitting through the API: what fitting did is on the result, text that must not be cut and
 * cannot fit is a 400 naming its component and costs nothing, and an html-editor document fits its
 * marked elements in a PDF whose text is all there.
 */

const run = promisify(execFile);
let app: TestApp;
let scratch: string;

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  scratch = await mkdtemp(path.join(tmpdir(), 'text-fit-e2e-'));
});
afterAll(async () => {
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const LONG = 'A product name three times longer than the sample the designer had in mind when drawing this card. '.repeat(2).trim();
const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

const canvasTemplate = async (title: Record<string, unknown>) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Card', width: 400, height: 200, editor: 'canvas-editor' } });
  expect(created.status).toBe(200);
  const template = created.body.identifier as string;
  const put = await app.call('PUT', `/api/v2/my-templates/${template}/components`, {
    body: { components: [{ id: 'title', type: 'TEXT', x: 20, y: 20, width: 360, height: 80, text: 'Sample', fontSize: 40, ...title }] },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return template;
};

describe('text fitting through the API', () => {
  it('shrinks a canvas TEXT to fit its data and puts what it did on the result', async () => {
    const template = await canvasTemplate({ fit: 'shrink', minFontSize: 10, maxLines: 4 });
    const rendered = await app.call('POST', '/api/v2/render', { body: { template, data: { 'title.text': LONG }, cache: false } });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    const result = await app.call('GET', `/api/v2/results/${rendered.body.requestId as string}`);
    expect(result.status).toBe(200);
    const fit = result.body.fit?.title as { fontSize: number; lines: number; truncated: boolean };
    expect(fit.fontSize).toBeLessThan(40);
    expect(fit.fontSize).toBeGreaterThanOrEqual(10);
    expect(fit.lines).toBeLessThanOrEqual(4);
    expect(fit.truncated).toBe(false);
    // The same data with the short sample keeps the designed size.
    const short = await app.call('POST', '/api/v2/render', { body: { template, data: { 'title.text': 'Short' }, cache: false } });
    expect((await app.call('GET', `/api/v2/results/${short.body.requestId as string}`)).body.fit.title).toEqual({ fontSize: 40, lines: 1, truncated: false });
  });

  it('answers 400 naming the component when text that must not be cut cannot fit, and charges nothing', async () => {
    const template = await canvasTemplate({ fit: 'shrink', minFontSize: 30, overflow: 'error' });
    const before = await creditsUsed();
    const refused = await app.call('POST', '/api/v2/render', { body: { template, data: { 'title.text': LONG }, cache: false } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, msg: expect.stringContaining('title') });
    expect(refused.body.msg).toMatch(/does not fit its box even at its smallest font size/);
    expect(await creditsUsed()).toBe(before);
  });

  it('fits html elements marked data-fit in a PDF: the result says so and pdftotext finds the whole text', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Doc', width: 600, height: 300, editor: 'html-editor', outputFormat: 'pdf' } });
    const template = created.body.identifier as string;
    const html = '<h1 id="headline" data-fit="shrink" data-min-font-size="12" data-max-lines="2">{{headline}}</h1>';
    const css = 'h1{margin:20px;width:560px;height:100px;font-size:48px;overflow:hidden}';
    expect((await app.call('PUT', `/api/v2/my-templates/${template}/html-editor`, { body: { html, css, sampleData: { headline: 'Short' } } })).status).toBe(200);
    const headline = 'Quarterly report of the northern region with every figure the board asked for';
    const rendered = await app.call('POST', '/api/v2/render', { body: { template, data: { headline }, cache: false } });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    const result = (await app.call('GET', `/api/v2/results/${rendered.body.requestId as string}`)).body;
    expect(result.fit.headline.fontSize).toBeLessThan(48);
    expect(result.fit.headline.lines).toBeLessThanOrEqual(2);
    const url = new URL(rendered.body.href as string);
    const response = await fetch(`${app.url}${url.pathname}${url.search}`);
    const file = path.join(scratch, 'headline.pdf');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    expect((await run('pdftotext', [file, '-'])).stdout.replace(/\s+/g, ' ').trim()).toBe(headline);
  });
});

describe('lists and tables from data', () => {
  it('renders a 500-row {{#items}} table as a PDF whose every page repeats the header and splits no row, ending with the last row', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Invoice', width: 794, height: 1123, editor: 'html-editor', outputFormat: 'pdf' } });
    const template = created.body.identifier as string;
    const html = [
      '<h1>Invoice {{number}}</h1>',
      '<table><thead><tr><th>Item</th><th>Description</th><th>Amount</th></tr></thead><tbody>',
      '{{#items}}<tr><td>{{name}}</td><td>{{description}}</td><td>{{amount}}</td></tr>{{/items}}',
      '{{^items}}<tr><td colspan="3">No items</td></tr>{{/items}}',
      '</tbody></table>',
    ].join('');
    const css = 'body{font:14px "DejaVu Sans";margin:40px}table{width:100%;border-collapse:collapse}td,th{border:1px solid #999;padding:4px;white-space:nowrap}td:nth-child(2){white-space:normal}tr{break-inside:avoid}';
    expect((await app.call('PUT', `/api/v2/my-templates/${template}/html-editor`, { body: { html, css, sampleData: { number: 'S-1', items: [] } } })).status).toBe(200);
    const items = Array.from({ length: 500 }, (_, index) => ({
      name: `ITEM${String(index + 1).padStart(3, '0')}`,
      // Every tenth row wraps onto more lines: a row taller than the rest must not be split either; its last word says where it ended.
      description: index % 10 === 0 ? `Part ${index + 1}, ${'with a description long enough to wrap onto another line of the cell '.repeat(2)}END${index + 1}` : `Part ${index + 1} END${index + 1}`,
      amount: `${index + 1}.00 EUR`,
    }));
    const rendered = await app.call('POST', '/api/v2/render', { body: { template, data: { number: 'INV-500', items }, cache: false } });
    expect(rendered.status, JSON.stringify(rendered.body)).toBe(200);
    const url = new URL(rendered.body.href as string);
    const file = path.join(scratch, 'table.pdf');
    await writeFile(file, Buffer.from(await (await fetch(`${app.url}${url.pathname}${url.search}`)).arrayBuffer()));
    const pages = Number(/Pages:\s+(\d+)/.exec((await run('pdfinfo', [file])).stdout)?.[1]);
    expect(pages).toBeGreaterThan(5);
    /** Row numbers by page, as each part of a row shows them: its name, the end of its description, its amount. */
    const parts = { name: new Map<number, number>(), end: new Map<number, number>(), amount: new Map<number, number>() };
    const record = (part: Map<number, number>, number: number, page: number) => {
      expect(part.has(number), `row ${number} appears once`).toBe(false);
      part.set(number, page);
    };
    for (let page = 1; page <= pages; page++) {
      const text = (await run('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-'])).stdout;
      expect(text, `page ${page} repeats the header`).toMatch(/Item\s+Description\s+Amount/);
      for (const match of text.matchAll(/ITEM(\d{3})/g)) record(parts.name, Number(match[1]), page);
      for (const match of text.matchAll(/END(\d+)/g)) record(parts.end, Number(match[1]), page);
      for (const match of text.matchAll(/(\d+)\.00 EUR/g)) record(parts.amount, Number(match[1]), page);
    }
    for (const part of Object.values(parts)) expect(part.size).toBe(500);
    // No row split: every part of a row on the page its name is on.
    const split = [...parts.name].filter(([number, page]) => parts.end.get(number) !== page || parts.amount.get(number) !== page);
    expect(split).toEqual([]);
    expect(parts.name.get(500)).toBe(pages);
  });

  it('refuses data whose list is longer than the bound, naming it', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'List', width: 200, height: 200, editor: 'html-editor' } });
    const template = created.body.identifier as string;
    await app.call('PUT', `/api/v2/my-templates/${template}/html-editor`, { body: { html: '{{#items}}{{.}}{{/items}}', css: '', sampleData: {} } });
    const refused = await app.call('POST', '/api/v2/render', { body: { template, data: { items: Array.from({ length: 10_001 }, () => 1) } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContain('data.items: a list of 10001 items; at most 10000');
  });
});
