import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infrastructure/config/logger.js';
import { createEventStore } from '../../infrastructure/event-store/create-event-store.js';
import { resolveDatabaseUrl } from '../../infrastructure/postgres/embedded-postgres.js';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { at, writeScriptedHistory, type ScriptedHistory } from '../fixtures/scripted-history.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** Runs the admin CLI as an operator would, with only the given environment; resolves with its stdout. */
const cli = async (args: readonly string[], env: Record<string, string>) => (await cliOutput(args, env)).stdout;

const cliOutput = async (args: readonly string[], env: Record<string, string>) => {
  const { stdout, stderr } = await run(process.execPath, [...TYPESCRIPT_FLAGS, 'interfaces/cli/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'error', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout, stderr };
};

/** RFC 4180: quoted cells may hold commas, quotes (doubled) and newlines. */
const parseCsv = (text: string): string[][] => {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') (cell += '"'), index++;
      else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(cell), (cell = '');
    else if (char === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else cell += char;
  }
  return rows;
};

let app: TestApp;
let history: ScriptedHistory;
const keys = { audit: '', render: '', full: '' };

beforeAll(async () => {
  app = await startTestApp();
  history = await writeScriptedHistory(app.runtime.eventStore);
  const { accounts } = app.runtime.services;
  // The organization was opened by events alone; its keys are issued the usual way.
  await app.runtime.projections.waitFor((await app.runtime.eventStore.headPosition()) ?? 0, 10_000);
  keys.audit = (await accounts.issueApiKey(history.orgId, { label: 'auditor', scopes: ['audit'] })).key;
  keys.render = (await accounts.issueApiKey(history.orgId, { label: 'renderer', scopes: ['render', 'templates'] })).key;
  keys.full = (await accounts.issueApiKey(history.orgId, { label: 'everything' })).key;
});
afterAll(async () => {
  await app?.close();
});

const idsInRequestOrder = () => {
  const { requests } = history;
  return [requests.rendered, requests.cached, requests.failed, requests.deleted, requests.screenshot, requests.pdf, requests.otherTemplate];
};

describe('GET /api/v2/audit/history', () => {
  it('pages the history for a key with the audit scope', async () => {
    const first = await app.call('GET', '/api/v2/audit/history?size=5', { key: keys.audit });
    const second = await app.call('GET', '/api/v2/audit/history?size=5&page=1', { key: keys.audit });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ page: 0, size: 5, total: 7 });
    expect([...first.body.items, ...second.body.items].map((row: { requestId: string }) => row.requestId)).toEqual(idsInRequestOrder());
    expect(first.body.items[0]).toMatchObject({ kind: 'render', status: 'done', credits: { charged: 1 }, webhooks: [{ attempt: 1 }, { attempt: 2 }, { attempt: 3, outcome: 'delivered' }] });

    const window = await app.call('GET', `/api/v2/audit/history?from=${at(250)}&to=${at(450)}&template=${history.templateId}`, { key: keys.audit });
    expect(window.body.items.map((row: { requestId: string }) => row.requestId)).toEqual([history.requests.failed, history.requests.deleted]);
  });

  it('answers 403 to a key without the audit scope, and keys issued without scopes keep full access', async () => {
    const denied = await app.call('GET', '/api/v2/audit/history', { key: keys.render });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ msg: 'This API key lacks the audit scope', status: 403, errors: ['missing scope: audit'] });
    const full = await app.call('GET', '/api/v2/audit/history?size=1', { key: keys.full });
    expect(full.status).toBe(200);
    expect(full.body.total).toBe(7);
  });

  it('does not let an audit-only key render or change templates', async () => {
    const render = await app.call('POST', '/api/v2/render', { key: keys.audit, body: { template: history.templateId, data: {} } });
    expect(render.status).toBe(403);
    expect(render.body).toMatchObject({ status: 403, errors: ['missing scope: render'] });
    const template = await app.call('POST', '/api/v2/my-templates', { key: keys.audit, body: { name: 'X', width: 10, height: 10, editor: 'html-editor' } });
    expect(template.status).toBe(403);
  });

  it('rejects bad queries with 400 in the error shape', async () => {
    for (const query of ['from=yesterday', `from=${at(500)}&to=${at(100)}`, 'size=0', 'page=-1']) {
      const response = await app.call('GET', `/api/v2/audit/history?${query}`, { key: keys.audit });
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({ msg: 'Invalid query', status: 400, errors: [expect.stringMatching(/^query\./)] });
    }
  });

  it('shows a template as it was at a moment', async () => {
    const before = await app.call('GET', `/api/v2/audit/templates/${history.templateId}?at=${at(120)}`, { key: keys.audit });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ revision: 1, settings: { name: 'Card' }, content: { html: '<h1>{{title}}</h1>' } });
    const after = await app.call('GET', `/api/v2/audit/templates/${history.templateId}?at=${at(200)}`, { key: keys.audit });
    expect(after.body).toMatchObject({ revision: 2, settings: { name: 'Card v2', width: 800 } });
    expect((await app.call('GET', `/api/v2/audit/templates/${history.templateId}?at=${at(120)}`, { key: keys.render })).status).toBe(403);
  });
});

describe('tRPC audit.history', () => {
  const clientFor = (key: string) => createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: () => ({ 'x-api-key': key }) })] });

  it('pages the same history and refuses keys without the audit scope', async () => {
    const page = await clientFor(keys.audit).audit.history.query({ page: 1, size: 3 });
    expect(page.total).toBe(7);
    expect(page.items.map((row) => row.requestId)).toEqual(idsInRequestOrder().slice(3, 6));
    const snapshot = await clientFor(keys.audit).audit.templateAt.query({ templateId: history.templateId, at: at(120) });
    expect(snapshot.settings).toMatchObject({ name: 'Card' });

    const error = await clientFor(keys.render).audit.history.query({ page: 0, size: 3 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data?.httpStatus).toBe(403);
  });
});

describe('npm run cli -- audit', () => {
  const env = () => ({ DATABASE_URL: app.runtime.config.DATABASE_URL ?? '', DATA_DIR: app.runtime.config.DATA_DIR });

  it('streams the history as NDJSON, with a progress bar on stderr when asked', async () => {
    const { stdout, stderr } = await cliOutput(['audit', 'history', '--org', history.orgId, '--progress'], env());
    expect(stderr).toMatch(/replaying \|.*\| 100%/);
    const rows = stdout.trim().split('\n').map((line) => JSON.parse(line) as { requestId: string; actor: string });
    expect(rows.map((row) => row.requestId).sort()).toEqual(idsInRequestOrder().sort());
    expect(rows.every((row) => row.actor === history.keys.renderer)).toBe(true);
  });

  it('streams the history as CSV with a header and quoted JSON cells', async () => {
    const stdout = await cli(['audit', 'history', '--org', history.orgId, '--format', 'csv', '--from', at(300), '--to', at(300)], env());
    const [header, ...records] = parseCsv(stdout);
    expect(header).toContain('requestId');
    expect(records).toHaveLength(1);
    const record = Object.fromEntries((header ?? []).map((column, index) => [column, records[0]?.[index]]));
    expect(record).toMatchObject({
      requestId: history.requests.failed,
      kind: 'render',
      status: 'failed',
      failureReason: 'Page crashed',
      creditsCharged: '1',
      creditsRefunded: '1',
      webhookAttempts: '3',
      webhookOutcome: 'abandoned',
      templateRevision: '2',
    });
    expect(JSON.parse(record.data ?? '')).toEqual({ title: 'Broken' });
  });

  it('prints a template as it was', async () => {
    const snapshot = JSON.parse(await cli(['audit', 'template', '--id', history.templateId, '--at', at(120)], env()));
    expect(snapshot).toMatchObject({ revision: 1, settings: { name: 'Card' } });
  });

  it('rebuilds the read models beside the running service: verify, then swap', async () => {
    expect(await cli(['projections', 'rebuild', '--verify'], env())).toMatch(/^Rebuilt and compared \d+ tables from \d+ events .*\nOK: the live read models equal a rebuild\n$/);

    const sql = new pg.Client({ connectionString: app.runtime.config.DATABASE_URL });
    await sql.connect();
    try {
      await sql.query('update results set status = $2 where request_id = $1', [history.requests.failed, 'done']);
      const failure = await cli(['projections', 'rebuild', '--verify'], env()).then(
        () => expect.fail('rebuild --verify should exit non-zero'),
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure.code).toBe(1);
      expect(failure.stdout).toContain('DIFFERENCE results: 1 rows only in the live table, 1 only in the rebuilt one');
      expect(await cli(['projections', 'rebuild'], env())).toMatch(/^Rebuilt and swapped in \d+ tables/);
      expect((await sql.query('select status from results where request_id = $1', [history.requests.failed])).rows).toEqual([{ status: 'failed' }]);
    } finally {
      await sql.end();
    }
    // The service reads the swapped-in tables.
    const page = await app.call('GET', '/api/v2/results?size=50', { key: keys.full });
    expect(page.body.totalElements).toBe(6);
    // Three CLI processes, each loading the service's modules afresh: 20 s apiece on a loaded 2-core machine.
  }, 180_000);

  it('verifies the ledger and the hash chains, exiting 1 with each difference after an event was edited', async () => {
    await app.runtime.projections.waitFor((await app.runtime.eventStore.headPosition()) ?? 0, 10_000);
    expect(await cli(['audit', 'verify'], env())).toMatch(/^OK: \d+ events checked up to position \d+ .*0 hash chain breaks, 0 ledger differences\n$/);

    const sql = new pg.Client({ connectionString: app.runtime.config.DATABASE_URL });
    await sql.connect();
    try {
      const stream = `render-${history.requests.rendered}`;
      await sql.query(`update events set data = jsonb_set(data, '{bytes}', '1') where stream_name = $1 and type = 'RenderCompleted'`, [stream]);
      const failure = await cli(['audit', 'verify', '--org', history.orgId], env()).then(
        () => expect.fail('verify should exit non-zero'),
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure.code).toBe(1);
      expect(failure.stdout).toContain(`DIFFERENCE stream ${stream} revision 1 `);
      expect(failure.stdout).toContain(`DIFFERENCE account ${history.orgId} uploadsUsed: events say ${history.uploadsBytes - 1499}, found ${history.uploadsBytes}`);
      expect(failure.stdout).toMatch(/\nFAILED: .* 1 hash chain breaks, 1 ledger differences\n$/);
    } finally {
      await sql.end();
    }
  });

  it('reuses the embedded PostgreSQL a running service started in the same DATA_DIR', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'audit-cli-'));
    // What `npm start` does with no DATABASE_URL: an embedded server in DATA_DIR/postgres.
    const database = await resolveDatabaseUrl({ dataDir });
    try {
      const eventStore = await createEventStore({ databaseUrl: database.url, logger: createLogger('silent') });
      const running = await writeScriptedHistory(eventStore);
      await eventStore.close();
      const stdout = await cli(['audit', 'history', '--org', running.orgId], { DATA_DIR: dataDir });
      expect(stdout.trim().split('\n')).toHaveLength(7);
    } finally {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
