import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The studio's Batches page in real Chromium against the real service: a CSV chosen through the
 * file input (or dropped on the drop zone), its first rows shown and rendered before the batch
 * starts, the batch followed to its end, its ZIP downloaded; the Results page's thumbnails.
 * Page functions are written as text: this file is type-checked for Node, without the DOM's names.
 */
const studioDir = fileURLToPath(new URL('../../studio/dist', import.meta.url));
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ROWS = 30;
const COLOURS = ['#ff0000', '#0000ff', '#00a000'];

let app: TestApp;
let browser: Browser;
let page: Page;
let scratch: string;
let downloads: string;
let templateId: string;
let batchId: string;

/** A control by its role and accessible name, as assistive technology finds it. */
const field = (name: string, role = 'textbox') => page.locator(`::-p-aria([name="${name}"][role="${role}"])`);

const textOf = async (selector: string, on: Page = page) => on.$eval(selector, (element) => element.textContent ?? '').catch(() => '');

/** Waits until every <img> a selector finds (at least `count`) has loaded a picture. */
const imagesLoaded = (selector: string, count: number, on: Page = page) =>
  waitFor(
    `${count} loaded images ${selector}`,
    async () => {
      const sizes = (await on.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((img) => img.complete ? img.naturalWidth : 0)`)) as number[];
      return sizes.length >= count && sizes.every((width) => width > 0) ? sizes : undefined;
    },
    60_000,
  );

/** The ZIP's entry names. */
const entriesOf = async (zip: Buffer): Promise<string[]> => {
  const archive = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(zip, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))));
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    archive.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName);
      archive.readEntry();
    });
    archive.on('end', resolve);
    archive.on('error', reject);
    archive.readEntry();
  });
  return names;
};

const chooseTemplate = async (on: Page) => {
  await on.locator('::-p-aria([name="Template"][role="combobox"])').fill(templateId);
  await on.waitForSelector('[data-testid=batch-columns]');
};

const uploadCsv = async (on: Page, file: string) => {
  const input = await on.waitForSelector('.drop-zone input[type=file]');
  await input?.uploadFile(file);
};

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'studio-batches-e2e-'));
  downloads = path.join(scratch, 'downloads');
  app = await startTestApp({ rendering: 'worker', studioDir });
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Batch card', width: 200, height: 100, editor: 'html-editor', outputFormat: 'png' } });
  expect(created.status).toBe(200);
  templateId = created.body.identifier as string;
  const html = '<div style="position:fixed;inset:0;background:{{bg}};font:24px sans-serif">{{title}}</div>';
  expect((await app.call('PUT', `/api/v2/my-templates/${templateId}/html-editor`, { body: { html, css: 'body{margin:0}' } })).status).toBe(200);

  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'], defaultViewport: { width: 1280, height: 900 } });
  page = await browser.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${app.url}/studio`);
  await page.locator('#api-key').fill(app.apiKey);
  await field('Open the studio', 'button').click();
  await page.waitForSelector('.create');
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the studio batches page', () => {
  it('shows the service refusal of a dropped CSV with every line it names', async () => {
    await page.locator('::-p-aria([name="Batches"][role="link"])').click();
    await page.waitForFunction('location.hash === "#/batches"');
    await chooseTemplate(page);
    expect(await textOf('[data-testid=batch-columns]')).toMatch(/^Columns of Batch card: (bg, title|title, bg);/);

    // Dropped onto the drop zone as a file dragged from the desktop would be.
    await page.evaluate(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['title,colour\\r\\nOne,#ff0000\\r\\nTwo,#0000ff\\r\\n'], 'dropped.csv', { type: 'text/csv' }));
      const zone = document.querySelector('[data-testid=drop-zone]');
      zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    })()`);
    await page.waitForSelector('[data-testid=csv-preview]');
    expect(await textOf('[data-testid=csv-preview] caption')).toBe('dropped.csv: 2 rows');
    // The input says which file is chosen, and the page warns before the service refuses.
    expect(await page.$eval('.drop-zone input[type=file]', (input) => (input as unknown as { files: { name: string }[] }).files[0]?.name)).toBe('dropped.csv');
    expect(await textOf('.batch-form .problem')).toContain('Batch card has no field colour');

    await field('Start', 'button').click();
    const alert = await page.waitForSelector('.batch-form .problem-lines');
    await waitFor('the refusal lines', async () => ((await alert?.evaluate((element) => element.querySelectorAll('li').length)) ?? 0) >= 2 || undefined);
    const lines = (await alert?.evaluate((element) => [...element.querySelectorAll('li')].map((item) => item.textContent))) ?? [];
    expect(await alert?.evaluate((element) => element.querySelector('p')?.textContent)).toBe('2 of 2 rows cannot be rendered; nothing was recorded');
    expect(lines).toEqual(['row 1: colour: the template has no merge field colour', 'row 2: colour: the template has no merge field colour']);
    expect((await app.call('GET', '/api/v2/batches')).body.totalElements).toBe(0);
  });

  it('previews a 30-row CSV, renders its first rows, runs it to the end and downloads its ZIP', async () => {
    const lines = Array.from({ length: ROWS }, (_, index) => `"Card ${index + 1}, numbered",${COLOURS[index % COLOURS.length]},card-${index + 1}`);
    const csvPath = path.join(scratch, 'rows.csv');
    await writeFile(csvPath, `title,bg,fileName\r\n${lines.join('\r\n')}\r\n`);
    await uploadCsv(page, csvPath);

    // The first five rows as read in the page, quoted commas kept.
    await page.waitForFunction('document.querySelector("[data-testid=csv-preview] caption")?.textContent.startsWith("rows.csv")');
    expect(await textOf('[data-testid=csv-preview] caption')).toBe('rows.csv: 30 rows, the first 5 shown');
    const header = await page.$$eval('[data-testid=csv-preview] thead th', (cells) => cells.map((cell) => cell.textContent));
    expect(header).toEqual(['Row', 'title', 'bg', 'fileName']);
    const body = await page.$$eval('[data-testid=csv-preview] tbody tr', (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
    expect(body).toHaveLength(5);
    expect(body[0]).toEqual(['1', 'Card 1, numbered', '#ff0000', 'card-1']);
    expect(body[4]).toEqual(['5', 'Card 5, numbered', '#0000ff', 'card-5']);
    expect(await page.$('.batch-form .problem')).toBeNull();

    // The first three rows rendered before anything starts, each in its own row's colour.
    const widths = await imagesLoaded('[data-testid=batch-thumbnail]', 3);
    expect(widths).toEqual([200, 200, 200]);
    const centres = (await page.evaluate(`Promise.all([...document.querySelectorAll('[data-testid=batch-thumbnail]')].map(async (img) => {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0);
      return [...context.getImageData(canvas.width - 5, canvas.height - 5, 1, 1).data.slice(0, 3)];
    }))`)) as number[][];
    expect(centres.map(([red, green, blue]) => (red! > 200 ? 'red' : blue! > 200 ? 'blue' : green! > 120 ? 'green' : `${red},${green},${blue}`))).toEqual(['red', 'blue', 'green']);
    expect(await page.$eval('[data-testid=batch-thumbnail]', (img) => img.getAttribute('alt'))).toBe('Row 1 rendered with Batch card');
    expect((await app.call('GET', '/api/v2/batches')).body.totalElements).toBe(0);

    await field('Batch name (optional)').fill('Studio cards');
    await field('Start', 'button').click();
    await page.waitForFunction('location.hash.startsWith("#/batches/")');
    batchId = decodeURIComponent(String(await page.evaluate('location.hash.slice("#/batches/".length)')));

    // Followed every second until it ends.
    await waitFor(
      'the batch to reach 30/30 and done',
      async () => ((await textOf('[data-testid=batch-count]')) === `${ROWS}/${ROWS}` && (await textOf('[data-testid=batch-status]')) === 'done') || undefined,
      180_000,
    );
    const progress = await page.locator('::-p-aria([name="Progress of batch Studio cards"][role="progressbar"])').waitHandle();
    expect(await progress.evaluate((element) => [element.getAttribute('value'), element.getAttribute('max')])).toEqual([String(ROWS), String(ROWS)]);
    expect(await textOf('[data-testid=batch-done]')).toBe(String(ROWS));
    expect(await textOf('[data-testid=batch-failed]')).toBe('0');
    expect(await page.$('[data-testid=batch-failures]')).toBeNull();
    // Finished: nothing to cancel.
    expect(await page.$('::-p-aria([name="Cancel"][role="button"])')).toBeNull();
    const batch = (await app.call('GET', `/api/v2/batches/${batchId}`)).body;
    expect(batch).toMatchObject({ name: 'Studio cards', status: 'done', total: ROWS, done: ROWS, failed: 0 });
    expect(await textOf('[data-testid=batch-cached]')).toBe(String(batch.cached));

    // The recent batches list it, done, and opens it.
    await waitFor('the list to show the batch done', async () => (await textOf(`tr[data-batch-row="${batchId}"]`)).includes('done') || undefined);
    expect(await page.$eval(`tr[data-batch-row="${batchId}"]`, (row) => row.getAttribute('aria-current'))).toBe('true');

    // The ZIP, read with the key and saved through the browser's own download.
    const session = await page.createCDPSession();
    await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
    await field('Download ZIP', 'button').click();
    const zipPath = path.join(downloads, 'Studio cards.zip');
    const zip = await waitFor(
      'the downloaded ZIP',
      async () => {
        const names = await readdir(downloads).catch(() => [] as string[]);
        return names.includes('Studio cards.zip') && !names.some((name) => name.endsWith('.crdownload')) ? readFile(zipPath) : undefined;
      },
      30_000,
    );
    expect([...zip.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    const entries = await entriesOf(zip);
    expect(entries).toContain('manifest.csv');
    expect(entries.filter((name) => name.endsWith('.png')).sort()).toEqual(Array.from({ length: ROWS }, (_, index) => `card-${index + 1}.png`).sort());
    await session.detach();
  }, 240_000);

  it('opens a batch from the list after a reload', async () => {
    await page.goto(`${app.url}/studio/#/batches`);
    await page.reload();
    await page.locator('::-p-aria([name="Show the progress of Studio cards"][role="button"])').click();
    await page.waitForFunction(`location.hash === ${JSON.stringify(`#/batches/${batchId}`)}`);
    await waitFor('the batch to show', async () => (await textOf('[data-testid=batch-count]')) === `${ROWS}/${ROWS}` || undefined);
    expect(await textOf('[data-testid=batch-status]')).toBe('done');
  });

  it('shows a loaded thumbnail of each image on the Results page', async () => {
    await page.locator('::-p-aria([name="Results"][role="link"])').click();
    await page.waitForSelector('tr[data-result]');
    const sizes = await imagesLoaded('img[data-thumbnail]', 10);
    expect(sizes).toHaveLength(10);
    const thumbnails = await page.$$eval('img[data-thumbnail]', (images) => images.map((img) => [img.getAttribute('alt'), img.getAttribute('loading'), img.getAttribute('width'), img.getAttribute('height')]));
    expect(new Set(thumbnails.map((thumbnail) => thumbnail.join(' ')))).toEqual(new Set(['Render of Batch card lazy 64 48']));
    // Each picture is the result's own file, on this page's origin.
    const sources = await page.$$eval('img[data-thumbnail]', (images) => images.map((img) => img.getAttribute('src') ?? ''));
    expect(sources.every((source) => source.startsWith('/files/'))).toBe(true);
  });

  it('has no serious or critical accessibility violations on the Batches page (axe)', async () => {
    // axe is injected as a script, which the studio's CSP would refuse: a second tab bypasses it for the audit only.
    const audit = await browser.newPage();
    try {
      await audit.setBypassCSP(true);
      await audit.goto(`${app.url}/studio/`);
      await audit.evaluate(`sessionStorage.setItem('render-studio.api-key', ${JSON.stringify(app.apiKey)})`);
      await audit.goto(`${app.url}/studio/#/batches/${encodeURIComponent(batchId)}`);
      await audit.reload();
      await audit.waitForSelector('[data-testid=batch-status]');
      await audit.waitForSelector(`tr[data-batch-row="${batchId}"]`);
      // With every part showing: the columns, the preview table and the thumbnails.
      await chooseTemplate(audit);
      await uploadCsv(audit, path.join(scratch, 'rows.csv'));
      await audit.waitForSelector('[data-testid=csv-preview]');
      await imagesLoaded('[data-testid=batch-thumbnail]', 3, audit);
      await audit.addScriptTag({ path: axePath });
      const violations = (await audit.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`)) as string[];
      expect(violations).toEqual([]);
    } finally {
      await audit.close();
    }
  });
});
