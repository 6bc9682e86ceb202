import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countInk, inkDifference, inkOf, near, pixelsOf, pixelsOfImage, studioControls, type Region } from '../support/studio-page.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The studio's assets in real Chromium against the real service: a font and an image are uploaded
 * from the Assets page, picked in a canvas template's TEXT and IMAGE forms, seen in the rendered
 * preview (pixels), and deleted again from the studio.
 */
const studioDir = fileURLToPath(new URL('../../studio/dist', import.meta.url));
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** A bold monospaced face: its glyphs draw far more and differently placed ink than the default DejaVu Sans. */
const FONT_FILE = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf';
const FAMILY = 'Brand Mono';
const COLOUR = { r: 255, g: 0, b: 170 };
const PAGE = { width: 600, height: 300 };
const TEXT_BOX: Region = { x: 20, y: 20, width: 560, height: 100 };
const IMAGE_BOX: Region = { x: 380, y: 150, width: 180, height: 120 };

let app: TestApp;
let browser: Browser;
let page: Page;
let dir: string;
let pngPath: string;
let templateId: string;
/** The TEXT component's ink in the default font and in the uploaded one. */
let defaultInk: boolean[];
let brandedInk: boolean[];
const requestedUrls: string[] = [];

const controls = () => studioControls(page);

/** With STUDIO_SCREENSHOT_DIR set, the page as it is now, to look at. */
const screenshot = async (name: string) => {
  if (process.env.STUDIO_SCREENSHOT_DIR) await page.screenshot({ path: path.join(process.env.STUDIO_SCREENSHOT_DIR, `${name}.png`) as `${string}.png` });
};

/** The status line of a section of the Assets page, once it says something. */
const statusOf = (section: string) =>
  waitFor(`the ${section} status`, async () => {
    const text = await page.$eval(`section[aria-labelledby="${section}-heading"] .status`, (element) => element.textContent ?? '');
    return text && !text.endsWith('...') ? text : undefined;
  });

const preview = async () => {
  const element = await page.$('[data-testid=preview]');
  return element ? pixelsOf(element) : undefined;
};

const savedComponents = async () => (await app.call('GET', `/api/v2/my-templates/${templateId}/components`)).body.components as Record<string, unknown>[];

/** POST /api/v2/render?output=image without the render cache: what the template draws now. */
const renderNow = async () => {
  const response = await fetch(`${app.url}/api/v2/render?output=image`, {
    method: 'POST',
    headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ template: templateId, outputFormat: 'png', cache: false }),
  });
  expect(response.status).toBe(200);
  const png = Buffer.from(await response.arrayBuffer());
  if (process.env.STUDIO_SCREENSHOT_DIR) await sharp(png).toFile(path.join(process.env.STUDIO_SCREENSHOT_DIR, 'render-now.png'));
  return pixelsOfImage(png);
};

/**
 * The preview once the run that saved the document's latest state has finished: runs save before
 * they render and superseded runs are dropped, so call it after the saved document is the latest.
 */
const settledPreview = async () => {
  await page.waitForSelector('figure.preview[aria-busy="false"] [data-testid=preview]');
  return (await preview())!;
};

const centreOf = (box: Region) => [box.x + box.width / 2, box.y + box.height / 2] as const;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studio-assets-'));
  pngPath = path.join(dir, 'brand-colour.png');
  await sharp({ create: { width: 90, height: 60, channels: 3, background: COLOUR } }).png().toFile(pngPath);
  app = await startTestApp({ rendering: 'worker', studioDir });
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'], defaultViewport: { width: 1280, height: 900 } });
  page = await browser.newPage();
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${app.url}/studio`);
  await page.locator('#api-key').fill(app.apiKey);
  await controls().field('Open the studio', 'button').click();
  await page.waitForSelector('.create');
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('assets in the template studio', () => {
  it('uploads a font and an image from the Assets page, showing the service\'s error for a file that is not a font', async () => {
    const { field, typeInto } = controls();
    await field('Assets', 'link').click();
    await page.waitForFunction('location.hash === "#/assets"');
    await field('Upload font', 'button').wait();

    // A PNG is not a font: the service's 400 (msg and errors) shows in the fonts' status, as an alert, and nothing is listed.
    const fontInput = (await page.$('form[aria-label="Upload a font"] input[type=file]'))!;
    await fontInput.uploadFile(pngPath);
    await field('Upload font', 'button').click();
    const refused = await statusOf('fonts');
    expect(await page.$eval('section[aria-labelledby="fonts-heading"] .status', (element) => element.getAttribute('role'))).toBe('alert');
    expect(refused.length).toBeGreaterThan(10);
    expect(refused).not.toMatch(/^Uploaded/);
    expect(await page.$$('tr[data-font]')).toHaveLength(0);
    await screenshot('studio-assets-refused');

    await typeInto('Family (optional)', FAMILY);
    expect(await page.$eval('input[name=family]', (input) => (input as unknown as { value: string }).value)).toBe(FAMILY);
    await fontInput.uploadFile(FONT_FILE);
    await field('Upload font', 'button').click();
    await waitFor('the font listed', async () => ((await page.$$eval('tr[data-font] td:first-child', (cells) => cells.map((cell) => cell.textContent))).includes(FAMILY) ? true : undefined));
    expect(await statusOf('fonts')).toMatch(new RegExp(`^Uploaded ${FAMILY} \\(700\\)`));

    const imageInput = (await page.$('form[aria-label="Upload an image"] input[type=file]'))!;
    await imageInput.uploadFile(pngPath);
    await field('Upload image', 'button').click();
    expect(await statusOf('images')).toMatch(/^Uploaded PNG 90 x 60, /);

    // The thumbnail is the file read with the key and shown from a blob: URL (allowed by the studio's CSP).
    const thumbnail = (await page.waitForSelector('img[data-thumbnail]'))!;
    expect(await thumbnail.evaluate((image) => image.getAttribute('src'))).toMatch(/^blob:/);
    await waitFor('the thumbnail drawn', async () => {
      // Until the blob has loaded the image has no box to take a picture of.
      const loaded = await thumbnail.evaluate((element) => {
        const image = element as unknown as { complete: boolean; naturalWidth: number };
        return image.complete && image.naturalWidth > 0;
      });
      if (!loaded) return undefined;
      const shot = await pixelsOf(thumbnail);
      return near(shot.at(shot.width / 2, shot.height / 2), [COLOUR.r, COLOUR.g, COLOUR.b]) ? shot : undefined;
    });
    const uploads = (await app.call('GET', '/api/v2/uploads')).body;
    expect(uploads.totalElements).toBe(1);
    expect(await page.$eval('.upload-card input', (input) => (input as unknown as { value: string }).value)).toBe(uploads.content[0].href);
  });

  it('offers the organization\'s font families for a TEXT component and its uploads for an IMAGE component, and the preview shows them', async () => {
    const { field, typeInto } = controls();
    await page.goto(`${app.url}/studio/#/templates`);
    await field('Name').fill('Brand card');
    await field('Editor', 'combobox').fill('canvas-editor');
    await typeInto('Width', String(PAGE.width), 'spinbutton');
    await typeInto('Height', String(PAGE.height), 'spinbutton');
    await field('Create', 'button').click();
    await page.waitForFunction('location.hash.startsWith("#/templates/")');
    templateId = decodeURIComponent(String(await page.evaluate('location.hash.slice("#/templates/".length)')));

    await field('New component', 'combobox').fill('TEXT');
    await page.locator('.add button').click();
    await field('text (text)').wait();
    await typeInto('text (text)', 'Brand 1234');
    await typeInto('fontSize (number)', '56', 'spinbutton');
    for (const [name, value] of Object.entries(TEXT_BOX)) await typeInto(name, String(value), 'spinbutton');

    // The family field offers the uploaded family beside the built-in ones.
    const families = field('fontFamily (font)', 'combobox');
    await families.wait();
    const groups = await page.$eval('#property-text1\\.fontFamily', (select) =>
      [...select.querySelectorAll('optgroup')].map((group) => [group.getAttribute('label'), [...group.querySelectorAll('option')].map((option) => option.textContent)] as const),
    );
    expect(groups[0]).toEqual(['Uploaded fonts', [FAMILY]]);
    expect(groups[1]?.[0]).toBe('Built-in fonts');
    expect(groups[1]?.[1]).toContain('DejaVu Sans');

    // The default font first, as the fallback draws it: the text in DejaVu Sans.
    const isText = (component: Record<string, unknown>, family: string) =>
      component.text === 'Brand 1234' && component.fontSize === 56 && Object.entries(TEXT_BOX).every(([name, value]) => component[name] === value) && (component.fontFamily ?? 'DejaVu Sans') === family;
    await waitFor('the text saved', async () => ((await savedComponents()).some((component) => isText(component, 'DejaVu Sans')) ? true : undefined));
    defaultInk = inkOf(await settledPreview(), PAGE.width, TEXT_BOX);
    expect(countInk(defaultInk)).toBeGreaterThan(400);

    await families.fill(FAMILY);
    await waitFor('the family saved', async () => ((await savedComponents()).some((component) => isText(component, FAMILY)) ? true : undefined));
    brandedInk = inkOf(await settledPreview(), PAGE.width, TEXT_BOX);
    // Bold and monospaced: much more ink, in other places, than the same text in DejaVu Sans.
    expect(countInk(brandedInk)).toBeGreaterThan(countInk(defaultInk) * 1.3);
    expect(inkDifference(brandedInk, defaultInk)).toBeGreaterThan(1000);
    await screenshot('studio-assets-text');

    // The IMAGE component's source is picked from the uploads, by its thumbnail.
    await field('New component', 'combobox').fill('IMAGE');
    await page.locator('.add button').click();
    await field('src (url)').wait();
    for (const [name, value] of Object.entries(IMAGE_BOX)) await typeInto(name, String(value), 'spinbutton');
    const { href, identifier } = (await app.call('GET', '/api/v2/uploads')).body.content[0];
    const pick = (await page.waitForSelector(`[data-pick-upload="${identifier}"]`))!;
    expect(await pick.evaluate((button) => button.getAttribute('aria-pressed'))).toBe('false');
    // From the keyboard: focus the thumbnail's button and press Enter.
    await pick.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-pick-upload="${identifier}"][aria-pressed="true"]`);
    expect(await page.$eval('#property-image1\\.src', (input) => (input as unknown as { value: string }).value)).toBe(href);
    await waitFor('the image source saved', async () =>
      (await savedComponents()).some((component) => component.type === 'IMAGE' && component.src === href && Object.entries(IMAGE_BOX).every(([name, value]) => component[name] === value)) ? true : undefined,
    );

    const [cx, cy] = centreOf(IMAGE_BOX);
    const shown = await settledPreview();
    expect(shown.at((cx / PAGE.width) * shown.width, (cy / PAGE.height) * shown.height)).toSatisfy((pixel: number[]) => near(pixel, [COLOUR.r, COLOUR.g, COLOUR.b]));
    // Only where the IMAGE component is: the page is white beside it.
    expect(near(shown.at((50 / PAGE.width) * shown.width, (250 / PAGE.height) * shown.height), [255, 255, 255])).toBe(true);
    await screenshot('studio-assets-canvas');
  });

  it('has no serious or critical accessibility violations on the Assets page or in the picking forms (axe)', async () => {
    // axe is injected as a script, which the studio's CSP would refuse: a second tab bypasses it for the audit only.
    const audit = await browser.newPage();
    try {
      await audit.setBypassCSP(true);
      await audit.goto(`${app.url}/studio/`);
      await audit.evaluate(`sessionStorage.setItem('render-studio.api-key', ${JSON.stringify(app.apiKey)})`);
      const check = async (what: string) => {
        await audit.addScriptTag({ path: axePath });
        const violations = (await audit.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map((violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`)) as string[];
        expect(violations, what).toEqual([]);
      };
      await audit.goto(`${app.url}/studio/#/assets`);
      await audit.reload();
      await audit.waitForSelector('img[data-thumbnail]');
      await check('#/assets');

      await audit.goto(`${app.url}/studio/#/templates/${encodeURIComponent(templateId)}`);
      await audit.reload();
      await audit.waitForSelector('select#property-text1\\.fontFamily');
      await check('the TEXT form with its font families');
      await audit.evaluate('[...document.querySelectorAll(".components .pick")].find((button) => button.textContent.startsWith("image1")).click()');
      await audit.waitForSelector('[data-pick-upload] img');
      await check('the IMAGE form with its uploads');
    } finally {
      await audit.close();
    }
  });

  it('deletes the image and the font from the studio: they are gone from the lists, the storage and new renders', async () => {
    const { field } = controls();
    // Upload storage also holds the renders' files: the deletions give back exactly the assets' bytes.
    const usedBefore = (await app.call('GET', '/api/v1/usage')).body.uploads.used as number;
    const font = ((await app.call('GET', '/api/v1/fonts')).body as { identifier?: string; size: number }[]).find((each) => each.identifier);
    const upload = (await app.call('GET', '/api/v2/uploads')).body.content[0] as { size: number };
    expect(font?.size).toBeGreaterThan(300_000);

    await field('Assets', 'link').click();
    await page.waitForSelector('img[data-thumbnail]');
    await screenshot('studio-assets-page');
    await page.locator('.upload-card button.danger').click();
    await page.waitForSelector('::-p-text(No images uploaded yet.)');
    expect(await statusOf('images')).toMatch(/^Deleted the image PNG 90 x 60/);
    await field(`Delete the font ${FAMILY} (700)`, 'button').click();
    await page.waitForSelector('::-p-text(No fonts uploaded yet.)');
    await screenshot('studio-assets-deleted');
    expect(await statusOf('fonts')).toBe(`Deleted ${FAMILY}.`);

    expect((await app.call('GET', '/api/v2/uploads')).body.totalElements).toBe(0);
    expect(((await app.call('GET', '/api/v1/fonts')).body as { identifier?: string }[]).filter((font) => font.identifier)).toEqual([]);
    expect((await app.call('GET', '/api/v1/usage')).body.uploads.used).toBe(usedBefore - font!.size - upload.size);

    // The template still names the family, which its form keeps as a choice of its own; no uploads are offered.
    await page.goto(`${app.url}/studio/#/templates/${encodeURIComponent(templateId)}`);
    await page.waitForSelector('select#property-text1\\.fontFamily');
    expect(await page.$eval('select#property-text1\\.fontFamily', (select) => [(select as unknown as { value: string }).value, select.querySelector('optgroup')?.getAttribute('label')])).toEqual([
      FAMILY,
      'Named by this template',
    ]);

    // A new render (no cache) draws neither: the text falls back, the IMAGE component's place is empty.
    const after = await renderNow();
    const [cx, cy] = centreOf(IMAGE_BOX);
    expect(near(after.at((cx / PAGE.width) * after.width, (cy / PAGE.height) * after.height), [COLOUR.r, COLOUR.g, COLOUR.b])).toBe(false);
    const fallbackInk = inkOf(after, PAGE.width, TEXT_BOX);
    expect((await savedComponents()).find((component) => component.type === 'TEXT')?.fontFamily).toBe(FAMILY);
    expect(countInk(fallbackInk)).toBeGreaterThan(400);
    // The fallback (the page's sans-serif) is a face of its own: the uploaded one drew much more ink, elsewhere.
    expect(inkDifference(fallbackInk, brandedInk)).toBeGreaterThan(1000);
    expect(countInk(brandedInk)).toBeGreaterThan(countInk(fallbackInk) * 1.3);

    // The key went out in headers only, never in a URL.
    expect(requestedUrls.filter((url) => url.includes(app.apiKey))).toEqual([]);
  });
});
