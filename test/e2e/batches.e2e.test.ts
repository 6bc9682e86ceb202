import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { expectError } from '../support/expect-error.js';
import { verifyWithLibrary, type ReceivedPost } from '../support/standard-webhooks.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/*
 * Batches on the whole stack (PostgreSQL, Temporal, Chromium): a CSV of hundreds of rows rendered
 * as renders of their own, charged once each and collected as a ZIP with a manifest; bad rows
 * refused before anything is recorded; a cancelled batch leaving its rest uncharged; a merged PDF
 * with one outline entry per row; another organization seeing nothing of it.
 */

const run = promisify(execFile);

let app: TestApp;
let scratch: string;
let receiver: Server;
let receiverUrl: string;
const received: ReceivedPost[] = [];
let cardId: string;
let documentId: string;

const createHtmlTemplate = async (name: string, html: string, outputFormat = 'png', size = { width: 120, height: 60 }) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name, ...size, editor: 'html-editor', outputFormat } });
  expect(created.status).toBe(200);
  const put = await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, { body: { html, css: 'body{margin:0}' } });
  expect(put.status).toBe(200);
  return created.body.identifier as string;
};

const submitCsv = async (csv: string, fields: Record<string, string>, key = app.apiKey) => {
  const form = new FormData();
  form.set('file', new Blob([csv], { type: 'text/csv' }), 'rows.csv');
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await fetch(`${app.url}/api/v2/batches`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: response.status, body: await response.json() };
};

const batchOf = async (id: string, key = app.apiKey) => (await app.call('GET', `/api/v2/batches/${id}`, { key })).body;

const finished = (id: string, timeoutMs = 240_000) =>
  waitFor(
    `batch ${id} to end`,
    async () => {
      const batch = await batchOf(id);
      return batch.finishedAt ? batch : undefined;
    },
    timeoutMs,
  );

const creditsUsed = async () => (await app.call('GET', '/api/v1/usage')).body.credits.used as number;

/** The ZIP's entries by name. */
const unzip = async (zip: Buffer): Promise<Map<string, Buffer>> => {
  const archive = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(zip, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))));
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    archive.on('entry', (entry: yauzl.Entry) => {
      archive.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          archive.readEntry();
        });
      });
    });
    archive.on('end', resolve);
    archive.on('error', reject);
    archive.readEntry();
  });
  return entries;
};

/** An href of the service, fetched from the port this test's service listens on (its public base URL names another). */
const download = async (href: string, key = app.apiKey) => {
  const response = await fetch(`${app.url}${new URL(href, app.url).pathname}`, { headers: { 'x-api-key': key } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batches`;
  app = await startTestApp({ rendering: 'worker', env: { DEFAULT_PLAN_CREDITS: '5000', ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  scratch = await mkdtemp(path.join(os.tmpdir(), 'batches-e2e-'));
  cardId = await createHtmlTemplate('Batch card', '<div style="width:120px;height:60px;background:{{bg}}">{{title}}</div>');
  documentId = await createHtmlTemplate('Batch certificate', '<h1>Certificate for {{attendee}}</h1>', 'pdf', { width: 800, height: 600 });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a CSV batch', () => {
  const ROWS = 500;
  let batch: { identifier: string; name: string };
  let creditsBefore: number;

  it('is accepted with 202 once durable, and renders every row as a result of its own under its name', async () => {
    creditsBefore = await creditsUsed();
    // A byte order mark, quoted values with commas, and a fileName column, as spreadsheets write them.
    const lines = Array.from({ length: ROWS }, (_, index) => `"Card ${index + 1}, numbered",${index % 2 === 0 ? '#ff0000' : '#0000ff'},card-${index + 1}`);
    const submitted = await submitCsv(`\uFEFFtitle,bg,fileName\r\n${lines.join('\r\n')}\r\n`, { template: cardId, name: 'Catalogue' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    expect(submitted.body).toEqual({ identifier: expect.any(String), name: 'Catalogue', status: 'pending', total: ROWS });
    batch = submitted.body;

    const done = await finished(batch.identifier);
    expect(done).toMatchObject({ status: 'done', total: ROWS, done: ROWS, failed: 0, cached: 0, creditsCharged: ROWS, failures: [], mergedHref: null });
    const listed = await app.call('GET', `/api/v2/results?batch=Catalogue&size=1`);
    expect(listed.body.totalElements).toBe(ROWS);
    expect(await creditsUsed()).toBe(creditsBefore + ROWS);
  }, 300_000);

  it('is collected as a ZIP of every file, named by the fileName column, with a manifest', async () => {
    const { zipHref } = await batchOf(batch.identifier);
    const zip = await download(zipHref);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const entries = await unzip(zip.bytes);
    expect(entries.size).toBe(ROWS + 1);
    const manifest = entries.get('manifest.csv')?.toString('utf8').trim().split(/\r?\n/) ?? [];
    expect(manifest[0]).toBe('row,requestId,status,fileName,reason');
    expect(manifest).toHaveLength(ROWS + 1);
    expect(manifest[1]).toMatch(/^1,[0-9a-f-]{36},done,card-1\.png,$/);
    const distinct = new Set([...entries.entries()].filter(([name]) => name !== 'manifest.csv').map(([, bytes]) => bytes.toString('base64')));
    expect(distinct.size).toBe(ROWS);
    // Row 1 is red and row 2 blue, as their rows said.
    for (const [name, colour] of [['card-1.png', [255, 0, 0]], ['card-2.png', [0, 0, 255]]] as const) {
      const { data } = await sharp(entries.get(name)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = (50 * 120 + 110) * 3;
      expect([data[at], data[at + 1], data[at + 2]].map((value) => Math.round((value ?? 0) / 32))).toEqual(colour.map((value) => Math.round(value / 32)));
    }
  });

  it('is neither seen nor downloaded by another organization', async () => {
    const other = await app.newOrganizationKey();
    expectError(await app.call('GET', `/api/v2/batches/${batch.identifier}`, { key: other }), 404);
    expect((await download(`/api/v2/batches/${batch.identifier}/zip`, other)).status).toBe(404);
    expectError(await app.call('DELETE', `/api/v2/batches/${batch.identifier}`, { key: other }), 404);
    expect((await app.call('GET', '/api/v2/batches', { key: other })).body.totalElements).toBe(0);
    expect((await app.call('GET', '/api/v2/results?batch=Catalogue', { key: other })).body.totalElements).toBe(0);
  });
});

describe('a JSON batch', () => {
  it('with bad rows is one 400 naming each by number and column, recording and charging nothing', async () => {
    const head = await app.runtime.eventStore.headPosition();
    const credits = await creditsUsed();
    const rows = [{ data: { title: 'fine' } }, { data: { titel: 'misspelt' } }, { data: { title: 'fine' } }, { data: { title: 'x', colour: 'red' } }, { fileName: '../escape' }];
    const refused = await app.call('POST', '/api/v2/batches', { body: { template: cardId, rows } });
    expectError(refused, 400);
    expect(refused.body.errors).toEqual([
      'row 2: titel: the template has no merge field titel',
      'row 4: colour: the template has no merge field colour',
      expect.stringMatching(/^row 5: fileName: /),
    ]);
    expect(await app.runtime.eventStore.headPosition()).toBe(head);
    expect(await creditsUsed()).toBe(credits);
  });

  it('costing more credits than the account holds is a 402 naming both', async () => {
    const poor = await app.newOrganizationKey();
    const template = (await app.call('POST', '/api/v2/my-templates', { key: poor, body: { name: 'Poor', width: 50, height: 50, editor: 'html-editor' } })).body.identifier;
    const refused = await app.call('POST', '/api/v2/batches', { key: poor, body: { template, rows: Array.from({ length: 5001 }, () => ({})) } });
    expectError(refused, 402, /this batch costs 5001 credits .*; 5000 left/);
  });

  it('answers rows identical to earlier renders from the cache, free, and tells its webhook the counts, signed', async () => {
    const credits = await creditsUsed();
    const rows = [{ data: { title: 'Card 1, numbered', bg: '#ff0000' } }, { data: { title: 'Fresh', bg: '#00ff00' } }];
    const submitted = await app.call('POST', '/api/v2/batches', { body: { template: cardId, rows, webhookUrl: receiverUrl } });
    expect(submitted.status).toBe(202);
    const done = await finished(submitted.body.identifier, 60_000);
    expect(done).toMatchObject({ done: 2, cached: 1, creditsCharged: 1 });
    expect(await creditsUsed()).toBe(credits + 1);

    const post = await waitFor('the batch webhook', () => received.find((each) => each.body.includes(submitted.body.identifier)), 30_000);
    const secret = (await app.call('GET', '/trpc/account.webhookSecret')).body.result.data.secret as string;
    expect(verifyWithLibrary(secret, post)).toMatchObject({
      type: 'batch.completed',
      data: { identifier: submitted.body.identifier, status: 'done', total: 2, done: 2, failed: 0, cached: 1, creditsCharged: 1, zipHref: expect.stringMatching(/\/zip$/) },
    });
    expect(post.headers['webhook-id']).toBe(`batch-${submitted.body.identifier}`);
  });

  it('cancelled mid-way leaves its rest unrecorded and uncharged', async () => {
    const credits = await creditsUsed();
    const submitted = await app.call('POST', '/api/v2/batches', { body: { template: cardId, name: 'To cancel', rows: Array.from({ length: 300 }, (_, index) => ({ data: { title: `Cancel ${index}` } })) } });
    expect(submitted.status).toBe(202);
    await waitFor('five rows done', async () => ((await batchOf(submitted.body.identifier)).done >= 5 ? true : undefined), 60_000);
    const cancelled = await app.call('DELETE', `/api/v2/batches/${submitted.body.identifier}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const ended = await finished(submitted.body.identifier, 120_000);
    expect(ended.status).toBe('cancelled');
    expect(ended.done).toBeLessThan(300);
    expect(ended.creditsCharged).toBe(ended.done);
    const listed = (await app.call('GET', '/api/v2/results?batch=To%20cancel&size=1')).body.totalElements;
    expect(listed).toBe(ended.done + ended.failed);
    expect(await creditsUsed()).toBe(credits + ended.done);
    expectError(await app.call('DELETE', `/api/v2/batches/${submitted.body.identifier}`), 409, /has ended/);

    // The audit replays it: the batch from its stream, and its rows' renders each naming their row.
    const history = await app.call('GET', `/api/v2/audit/batches/${submitted.body.identifier}`);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ name: 'To cancel', total: 300, status: 'ended', cancelledAt: expect.any(String), ended: { done: ended.done, failed: ended.failed } });
    expect(history.body.ended.skipped).toBeGreaterThan(0);
    expect(history.body.states.map((change: { state: string }) => change.state)).toEqual(['requested', 'cancelled', 'ended']);
    const rows = await app.call('GET', `/api/v2/audit/history?batch=${submitted.body.identifier}&size=200`);
    expect(rows.body.total).toBe(ended.done + ended.failed);
    const numbers = rows.body.items.map((row: { batch: { id: string; name: string; row: number } }) => row.batch);
    expect(numbers.every((ref: { id: string; name: string }) => ref.id === submitted.body.identifier && ref.name === 'To cancel')).toBe(true);
    expect(new Set(numbers.map((ref: { row: number }) => ref.row)).size).toBe(numbers.length);
  }, 180_000);

  it('merged gives one PDF of every row in order, one outline entry per row', async () => {
    const attendees = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing'];
    const submitted = await app.call('POST', '/api/v2/batches', {
      body: { template: documentId, merge: true, rows: attendees.map((attendee, index) => ({ data: { attendee }, fileName: `certificate-${index + 1}` })) },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const done = await finished(submitted.body.identifier, 120_000);
    expect(done).toMatchObject({ done: 3, failed: 0, mergedHref: expect.stringMatching(/\/merged\.pdf$/) });
    const merged = await download(done.mergedHref);
    expect(merged.status).toBe(200);
    const file = path.join(scratch, 'merged.pdf');
    await writeFile(file, merged.bytes);
    expect((await run('pdfinfo', [file])).stdout).toMatch(/Pages:\s+3/);
    const text = (await run('pdftotext', [file, '-'])).stdout;
    expect(attendees.map((name) => text.indexOf(name))).toEqual([...attendees.map((name) => text.indexOf(name))].sort((a, b) => a - b));
    for (const name of attendees) expect(text).toContain(name);
    const outline = JSON.parse((await run('qpdf', ['--json', '--json-key=outlines', file])).stdout) as { outlines: { title: string; destpageposfrom1: number }[] };
    expect(outline.outlines.map(({ title, destpageposfrom1 }) => [title, destpageposfrom1])).toEqual([
      ['certificate-1', 1],
      ['certificate-2', 2],
      ['certificate-3', 3],
    ]);
    expectError(await app.call('POST', '/api/v2/batches', { body: { template: cardId, merge: true, rows: [{}] } }), 400, /^merge: needs outputFormat pdf/);
  }, 180_000);
});

describe('the event log', () => {
  it('holds the batches with unbroken hash chains, and audit verify finds the read models agree', async () => {
    const report = await app.runtime.services.audit.verify();
    expect(report).toMatchObject({ ok: true, chainBreaks: 0, differences: 0 });
    const requested = (await app.runtime.eventStore.readAll({ after: null, limit: 100_000 })).filter((event) => event.type === 'BatchRequested');
    // The four batches above that were accepted; the refused ones left nothing.
    expect(requested).toHaveLength(4);
    // Rows are stored beside the results, not carried in the event.
    for (const event of requested) expect(JSON.stringify(event.data).length).toBeLessThan(2_000);
  });
});
