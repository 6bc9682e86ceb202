import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { TYPESCRIPT_FLAGS } from '../../infrastructure/system/node-flags.js';

/*
 * `batch submit` as an operator runs it: a child process that talks to the running service over
 * HTTP (never its database), uploads a CSV, follows the batch with a progress bar on stderr and
 * streams its ZIP to a file; refusals of the service come out as its lines on stderr with exit code 1.
 */

const root = path.resolve(import.meta.dirname, '../..');

let app: TestApp;
let scratch: string;
let cardId: string;

/** The CLI with only the given environment; never rejects, so a failing run can be examined. */
const cli = (args: readonly string[], env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...TYPESCRIPT_FLAGS, 'interfaces/cli/main.ts', ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'error', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });

/** The names of a ZIP file's entries, read from its central directory. */
const zipEntries = (file: string) =>
  new Promise<string[]>((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, archive) => {
      if (error) return reject(error);
      const names: string[] = [];
      archive.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        archive.readEntry();
      });
      archive.on('end', () => resolve(names));
      archive.on('error', reject);
      archive.readEntry();
    });
  });

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cli-batch-e2e-'));
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'CLI card', width: 120, height: 60, editor: 'html-editor', outputFormat: 'png' } });
  expect(created.status).toBe(200);
  cardId = created.body.identifier;
  const put = await app.call('PUT', `/api/v2/my-templates/${cardId}/html-editor`, { body: { html: '<div style="width:120px;height:60px;background:{{bg}}">{{title}}</div>', css: 'body{margin:0}' } });
  expect(put.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('batch submit', () => {
  it('uploads a CSV, follows the batch to its end with progress on stderr and saves its ZIP, never showing the key', async () => {
    const ROWS = 20;
    const csv = path.join(scratch, 'cards.csv');
    const lines = Array.from({ length: ROWS }, (_, index) => `"Card ${index + 1}, by CLI",${index % 2 === 0 ? '#ff0000' : '#0000ff'},cli-card-${index + 1}`);
    await writeFile(csv, `title,bg,fileName\n${lines.join('\n')}\n`);
    const zip = path.join(scratch, 'cards.zip');

    const { code, stdout, stderr } = await cli(
      ['batch', 'submit', '--url', app.url, '--template', cardId, '--csv', csv, '--name', 'CLI cards', '--wait', '--zip', zip],
      { RENDER_API_KEY: app.apiKey },
    );
    expect(code, stderr).toBe(0);

    const out = stdout.trim().split('\n');
    expect(out).toHaveLength(3);
    expect(JSON.parse(out[0] ?? '')).toEqual({ identifier: expect.any(String), name: 'CLI cards', status: 'pending', total: ROWS });
    const ended = JSON.parse(out[1] ?? '');
    expect(ended).toMatchObject({ identifier: JSON.parse(out[0] ?? '').identifier, status: 'done', total: ROWS, done: ROWS, failed: 0, finishedAt: expect.any(String) });
    expect(out[2]).toBe(path.resolve(zip));

    const entries = await zipEntries(zip);
    expect(entries).toHaveLength(ROWS + 1);
    expect(entries).toContain('manifest.csv');
    expect(entries).toContain('cli-card-20.png');
    // Streamed through a .part file that is renamed once complete.
    expect(await readdir(scratch)).not.toContain('cards.zip.part');

    expect(stderr).toMatch(new RegExp(`batch CLI cards \\|.*\\| ${ROWS}/${ROWS} rows \\| 0 failed \\| done`));
    expect(stdout).not.toContain(app.apiKey);
    expect(stderr).not.toContain(app.apiKey);
  }, 300_000);

  it("prints the service's refusal of a bad CSV, naming its rows and column, with exit code 1", async () => {
    const csv = path.join(scratch, 'bad.csv');
    await writeFile(csv, 'title,colour\nFine,red\nAlso fine,blue\n');
    const { code, stdout, stderr } = await cli(['batch', 'submit', '--url', app.url, '--template', cardId, '--csv', csv, '--wait'], { RENDER_API_KEY: app.apiKey });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: .*\(HTTP 400\)$/m);
    expect(stderr).toContain('row 1: colour: the template has no merge field colour');
    expect(stderr).toContain('row 2: colour: the template has no merge field colour');
    expect(stderr).not.toContain(app.apiKey);
    expect((await app.call('GET', '/api/v2/batches')).body.totalElements).toBe(1);
  }, 60_000);

  it('refuses to run without an API key', async () => {
    const csv = path.join(scratch, 'cards.csv');
    const { code, stdout, stderr } = await cli(['batch', 'submit', '--url', app.url, '--template', cardId, '--csv', csv], {});
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/no API key: pass --key <key> or set RENDER_API_KEY/);
  }, 60_000);
});
