import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFStream, PDFString, decodePDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfinfo } from '../support/pdf-info.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
/** Low, so the tests can pass it with little paper; the page bomb is far beyond any limit. */
const MAX_PAGES = 30;
const A4_POINTS = { width: 595.28, height: 841.89 };

let app: TestApp;
let scratch: string;
/** A long web page for URL -> PDF, on loopback (allowed for this app). */
let pages: Server;
let pagesUrl: string;

const INVOICE_ROWS = 150;
const INVOICE_CSS = `
@page { size: A4; margin: 18mm 15mm 22mm; @bottom-center { content: "Page " counter(page) " of " counter(pages); font: 9pt "DejaVu Sans"; color: #444 } }
body { font: 10pt "DejaVu Sans"; color: #111 }
h1 { font-size: 20pt; margin: 0 0 4mm } h2 { font-size: 13pt; margin: 6mm 0 2mm }
table { width: 100%; border-collapse: collapse }
thead { display: table-header-group }
th { background: #1f3a68; color: #fff; text-align: left }
th, td { padding: 1.6mm 2mm; border-bottom: 0.3mm solid #ccd }
tr { break-inside: avoid }
td.amount, th.amount { text-align: right }
.totals { break-before: page }
`;
const invoiceHtml = () => {
  const rows = Array.from(
    { length: INVOICE_ROWS },
    (_, i) => `<tr><td>Line item ${i + 1}: {{product}}</td><td class="amount">${(i + 1) * 3}.00</td></tr>`,
  ).join('');
  return [
    '<h1>Invoice {{number}}</h1>',
    '<p>Pay online at <a href="https://pay.example.com/invoice">pay.example.com</a>.</p>',
    '<h2>Line items</h2>',
    `<table><thead><tr><th>Description</th><th class="amount">Amount</th></tr></thead><tbody>${rows}</tbody></table>`,
    '<h2 class="totals">Totals</h2><p>Total due: 33975.00</p>',
  ].join('');
};

/** Every element a forced page break: far more pages than any limit, made by a script after the markup loaded. */
/** The same 60,000 forced breaks, added 2,000 at a time with a pause between, as a page that yields. */
const PATIENT_PAGE_BOMB = `<script>
let added = 0;
const addSome = () => {
  const pages = document.createDocumentFragment();
  for (let i = 0; i < 2000; i++, added++) { const page = document.createElement('div'); page.style.breakAfter = 'page'; page.textContent = 'page ' + added; pages.append(page); }
  document.body.append(pages);
  if (added < 60000) setTimeout(addSome, 0);
};
addSome();
</script>`;

const PAGE_BOMB = `<script>
const pages = document.createDocumentFragment();
for (let i = 0; i < 60000; i++) { const page = document.createElement('div'); page.style.breakAfter = 'page'; page.textContent = 'page ' + i; pages.append(page); }
document.body.append(pages);
</script>`;

const createHtmlTemplate = async (name: string, html: string, css: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name, width: 794, height: 1123, editor: 'html-editor', outputFormat: 'pdf' } });
  expect(created.status).toBe(200);
  const templateId = created.body.identifier as string;
  const put = await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html, css, sampleData: { number: 'INV-1', product: 'Widget' } } });
  expect(put.status).toBe(200);
  return templateId;
};

const render = (body: Record<string, unknown>) => app.call('POST', '/api/v2/render', { body });
const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

/** The file at href (through the test server: hrefs name the configured public base URL), also written to disk for the poppler tools. */
const download = async (href: string) => {
  const url = new URL(href);
  const response = await fetch(`${app.url}${url.pathname}${url.search}`);
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  const file = path.join(scratch, `${url.pathname.split('/').at(-2) ?? 'file'}.pdf`);
  await writeFile(file, bytes);
  return { bytes, file, type: response.headers.get('content-type') };
};

const renderPdf = async (body: Record<string, unknown>) => {
  const response = await render({ outputFormat: 'pdf', cache: false, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return download(response.body.href as string);
};

const pageText = async (file: string, page: number) => (await run('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-'])).stdout;
/** The names a PDF uses anywhere, in its own syntax, once every object is written out plainly. */
const plainPdf = async (file: string) => (await run('qpdf', ['--qdf', '--object-streams=disable', file, '-'], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })).stdout;

/** Every font pdffonts lists, with whether it is embedded. */
const fonts = async (file: string) => {
  const { stdout } = await run('pdffonts', [file]);
  return stdout
    .split('\n')
    .slice(2)
    .filter(Boolean)
    // name type encoding emb sub uni object ID: the three yes/no columns come before the object number.
    .map((line) => ({ name: line.split(/\s+/)[0], embedded: line.split(/\s+/).at(-5) === 'yes' }));
};

const linksOf = (document: PDFDocument) =>
  document.getPages().flatMap((page) =>
    (page.node.lookupMaybe(PDFName.of('Annots'), PDFArray)?.asArray() ?? []).map((ref) => {
      const annotation = document.context.lookup(ref, PDFDict);
      const action = annotation.lookupMaybe(PDFName.of('A'), PDFDict);
      return { subtype: annotation.lookup(PDFName.of('Subtype'), PDFName).decodeText(), uri: action?.lookupMaybe(PDFName.of('URI'), PDFString)?.decodeText() };
    }),
  );

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pdf-documents-'));
  const paragraphs = Array.from({ length: 120 }, (_, i) => `<p>Paragraph ${i + 1} of a long article that runs over several printed pages.</p>`).join('');
  pages = createServer((req, res) => {
    if (req.url !== '/long') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Long article</title></head><body><h1>A long article</h1>${paragraphs}</body></html>`);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  app = await startTestApp({ rendering: 'worker', env: { ALLOWED_PRIVATE_HOSTS: '127.0.0.1', PDF_MAX_PAGES: String(MAX_PAGES) } });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => pages?.close(resolve));
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('html-editor templates rendered as PDF are documents', () => {
  let invoiceId: string;
  beforeAll(async () => {
    invoiceId = await createHtmlTemplate('Invoice', invoiceHtml(), INVOICE_CSS);
  });

  it('flows a 150-row invoice onto A4 pages with margin boxes, repeated table headers, links, an outline and tags', async () => {
    const { file, bytes, type } = await renderPdf({ template: invoiceId, data: { number: 'INV-2026-0042' } });
    expect(type).toBe('application/pdf');

    const info = await pdfinfo(file);
    const pageCount = Number(info.Pages);
    expect(pageCount).toBeGreaterThanOrEqual(3);
    expect(info.Tagged).toBe('yes');
    // Untitled markup is named after its template.
    expect(info.Title).toBe('Invoice');
    const document = await PDFDocument.load(bytes);
    for (const page of document.getPages()) {
      expect(Math.abs(page.getWidth() - A4_POINTS.width)).toBeLessThan(2);
      expect(Math.abs(page.getHeight() - A4_POINTS.height)).toBeLessThan(2);
    }

    const first = await pageText(file, 1);
    expect(first).toContain('Invoice INV-2026-0042');
    expect(first).toContain(`Page 1 of ${pageCount}`);
    const last = await pageText(file, pageCount);
    expect(last).toContain(`Page ${pageCount} of ${pageCount}`);
    expect(last).toContain('Total due: 33975.00');
    const all = (await run('pdftotext', [file, '-'])).stdout;
    expect(all).toContain(`Line item ${INVOICE_ROWS}: Widget`);
    // The table's head is printed again on every page the table reaches (all but the totals page).
    for (let page = 1; page < pageCount; page++) expect(await pageText(file, page)).toMatch(/Description\s+Amount/);

    expect(linksOf(document)).toContainEqual({ subtype: 'Link', uri: 'https://pay.example.com/invoice' });
    const catalog = document.catalog;
    const outlines = catalog.lookup(PDFName.of('Outlines'), PDFDict);
    const firstOutline = outlines.lookup(PDFName.of('First'), PDFDict);
    expect(firstOutline.lookup(PDFName.of('Title'), PDFString).decodeText()).toBe('Invoice INV-2026-0042');
    expect(catalog.lookup(PDFName.of('StructTreeRoot'), PDFDict)).toBeInstanceOf(PDFDict);
    expect(String(catalog.lookup(PDFName.of('MarkInfo'), PDFDict).get(PDFName.of('Marked')))).toBe('true');
    expect(await fonts(file)).toEqual(expect.arrayContaining([expect.objectContaining({ embedded: true })]));
    expect((await fonts(file)).filter((font) => !font.embedded)).toEqual([]);
  });

  it('refuses a page bomb that never pauses with a 400 naming the limit it hit, refunds it, and renders the next document', async () => {
    const bombId = await createHtmlTemplate('Page bomb', `<p>start</p>${PAGE_BOMB}`, '');
    const before = await creditsUsed();
    const refused = await render({ template: bombId, outputFormat: 'pdf', cache: false });
    expect(refused.status).toBe(400);
    // Built in one go, the bomb keeps the page busy past the 3 s watch on a slow machine, and reaches the page count on a fast one.
    expect(refused.body).toEqual({ msg: expect.stringMatching(new RegExp(`busy without a pause|more than ${MAX_PAGES} pages`)), status: 400, errors: [expect.any(String)] });
    await expect.poll(creditsUsed, { timeout: 10_000 }).toBe(before);

    const { file } = await renderPdf({ template: invoiceId });
    expect(Number((await pdfinfo(file)).Pages)).toBeGreaterThanOrEqual(3);
  });

  it('refuses a page bomb built in pieces with a 400 naming the page limit, refunds it, and renders the next document', async () => {
    const bombId = await createHtmlTemplate('Patient page bomb', `<p>start</p>${PATIENT_PAGE_BOMB}`, '');
    const before = await creditsUsed();
    const refused = await render({ template: bombId, outputFormat: 'pdf', cache: false, waitTime: 3000 });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ msg: expect.stringContaining(`more than ${MAX_PAGES} pages`), status: 400, errors: [expect.stringContaining(String(MAX_PAGES))] });
    await expect.poll(creditsUsed, { timeout: 10_000 }).toBe(before);

    const { file } = await renderPdf({ template: invoiceId });
    expect(Number((await pdfinfo(file)).Pages)).toBeGreaterThanOrEqual(3);
  });

  it('refuses a document longer than the limit that forces no breaks, once printed up to one page past it', async () => {
    const paragraphs = Array.from({ length: 60 * MAX_PAGES }, (_, i) => `<p>Paragraph ${i + 1}</p>`).join('');
    const longId = await createHtmlTemplate('Long report', paragraphs, '@page { size: A5; margin: 10mm }');
    const refused = await render({ template: longId, outputFormat: 'pdf', cache: false });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toContain(`more than ${MAX_PAGES} pages`);
  });

  it('keeps a canvas template one page of its own size', async () => {
    const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Poster', width: 400, height: 300, editor: 'canvas-editor' } });
    const templateId = created.body.identifier as string;
    const components = [
      { id: 'bg', type: 'RECTANGLE', x: 0, y: 0, width: 400, height: 3000, fill: '#204080' },
      { id: 'title', type: 'TEXT', x: 10, y: 10, width: 380, height: 60, text: 'Poster', fontSize: 32 },
    ];
    expect((await app.call('PUT', `/api/v2/my-templates/${templateId}/components`, { body: { background: '#ffffff', components } })).status).toBe(200);
    const { file } = await renderPdf({ template: templateId });
    const info = await pdfinfo(file);
    expect(info.Pages).toBe('1');
    // 400 x 300 CSS pixels are 300 x 225 points, to Chromium's rounding to device pixels.
    const [width, height] = (info['Page size'] ?? '').split(/\s+x\s+|\s+pts/).map(Number);
    expect(Math.abs((width ?? 0) - 300)).toBeLessThan(1);
    expect(Math.abs((height ?? 0) - 225)).toBeLessThan(1);
  });
});

describe('POST /api/v1/pdf of a long page', () => {
  it('keeps every page', async () => {
    const response = await app.call('POST', '/api/v1/pdf', { body: { url: `${pagesUrl}/long`, format: 'A5' } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { file } = await download(response.body.href as string);
    const pageCount = Number((await pdfinfo(file)).Pages);
    expect(pageCount).toBeGreaterThan(3);
    expect(await pageText(file, pageCount)).toContain('Paragraph 120 of a long article');
  });
});

describe('pdfStandard PDF/A-2b', () => {
  let reportId: string;
  beforeAll(async () => {
    reportId = await createHtmlTemplate('Archived report', '<h1>Annual report</h1><p>Kept for the long term. Ünïcödé text stays text.</p><p><a href="https://example.com/">example.com</a></p>', '@page { size: A4; margin: 20mm }');
  });

  it('makes a PDF/A-2b file: XMP identification matching Info, an sRGB output intent, an ID, fonts embedded, nothing that runs', async () => {
    const { file, bytes } = await renderPdf({ template: reportId, pdfStandard: 'PDF/A-2b' });
    await run('qpdf', ['--check', file]);
    const info = await pdfinfo(file);
    expect(info).toMatchObject({ 'Metadata Stream': 'yes', Encrypted: 'no', JavaScript: 'no', Tagged: 'yes', Title: 'Archived report', 'PDF version': '1.7' });

    const { stdout: xmp } = await run('pdfinfo', ['-meta', file]);
    expect(xmp).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Archived report</rdf:li>');
    const document = await PDFDocument.load(bytes, { updateMetadata: false });
    const created = document.getCreationDate()?.toISOString().replace(/\.000Z$/, 'Z');
    expect(xmp).toContain(`<xmp:CreateDate>${created}</xmp:CreateDate>`);
    expect(xmp).toContain(`<pdf:Producer>${document.getProducer()}</pdf:Producer>`);

    const intents = document.catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
    const intent = intents.lookup(0, PDFDict);
    expect(intent.lookup(PDFName.of('S'), PDFName).decodeText()).toBe('GTS_PDFA1');
    const profile = (intent.lookup(PDFName.of('DestOutputProfile'), PDFStream) as PDFRawStream);
    expect(String(profile.dict.get(PDFName.of('N')))).toBe('3');
    const icc = Buffer.from(decodePDFRawStream(profile).decode());
    expect(icc.subarray(12, 20).toString('latin1')).toBe('mntrRGB ');
    expect(icc.subarray(36, 40).toString('latin1')).toBe('acsp');

    const { stdout: trailer } = await run('qpdf', ['--show-object=trailer', file]);
    expect(trailer).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
    const plain = await plainPdf(file);
    // Names end where a name's characters do: /AA is not /AAAAAA+DejaVuSans, a subset font's name.
    expect(plain).not.toMatch(/\/(Encrypt|JavaScript|JS|AA|OpenAction|Launch)(?![\w+#-])/);
    expect((await fonts(file)).filter((font) => !font.embedded)).toEqual([]);
    expect(await pageText(file, 1)).toContain('Ünïcödé text stays text');
  });

  it('is its own cache entry: a plain PDF of the same request is not served for it', async () => {
    const plain = { template: reportId, outputFormat: 'pdf', data: { run: 'cache' } };
    expect((await render(plain)).status).toBe(200);
    await expect.poll(async () => (await render(plain)).body.cached, { timeout: 10_000 }).toBe(true);
    const archived = await render({ ...plain, pdfStandard: 'PDF/A-2b' });
    expect(archived.status).toBe(200);
    expect(archived.body.cached).toBeUndefined();
    expect((await pdfinfo((await download(archived.body.href as string)).file))['Metadata Stream']).toBe('yes');
  });

  it('is refused for any output but pdf', async () => {
    const before = await creditsUsed();
    const refused = await render({ template: reportId, outputFormat: 'png', pdfStandard: 'PDF/A-2b' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ msg: expect.stringContaining('pdfStandard'), status: 400, errors: [expect.stringContaining('pdfStandard')] });
    expect(await creditsUsed()).toBe(before);
    expect((await render({ template: reportId, outputFormat: 'pdf', pdfStandard: 'PDF/A-1a' })).status).toBe(400);
  });
});
