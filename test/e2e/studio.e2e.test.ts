import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import jsqr from 'jsqr';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The studio in real Chromium against the real service: every step drives the page as a person
 * would (labels, typing, dragging) and checks what the screen shows, pixel by pixel.
 */
/** jsqr is a CommonJS bundle whose types declare an ES default export; `.default` satisfies both. */
const decodeQr = jsqr.default;
const studioDir = fileURLToPath(new URL('../../studio/dist', import.meta.url));
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let app: TestApp;
let browser: Browser;
let page: Page;
const requestedUrls: string[] = [];

interface Pixels {
  readonly width: number;
  readonly height: number;
  at(x: number, y: number): [number, number, number];
  readonly rgba: Uint8ClampedArray;
}

/** What the screen shows of an element, as pixels. */
const pixelsOf = async (element: ElementHandle): Promise<Pixels> => {
  const png = await element.screenshot({ type: 'png' });
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    rgba: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    at: (x, y) => {
      const offset = (Math.round(y) * info.width + Math.round(x)) * 4;
      return [data[offset] ?? 0, data[offset + 1] ?? 0, data[offset + 2] ?? 0];
    },
  };
};

const near = (actual: readonly number[], expected: readonly number[], tolerance = 40) => actual.every((value, index) => Math.abs(value - (expected[index] ?? 0)) <= tolerance);

/** Waits until the element's pixel at a fraction of its size is near a colour. */
const waitForColour = async (selector: string, fx: number, fy: number, colour: readonly number[], what: string) => {
  let seen = 'no picture';
  try {
    return await waitFor(
      what,
      async () => {
        const element = await page.$(selector);
        // Re-rendered (a restore reloads the editor): for a moment there is nothing visible to take a picture of.
        if (!element || !(await element.isVisible())) return undefined;
        const pixels = await pixelsOf(element).catch(() => undefined);
        if (!pixels) return undefined;
        const at = pixels.at(pixels.width * fx, pixels.height * fy);
        seen = `rgb(${at.join(', ')})`;
        return near(at, colour) ? pixels : undefined;
      },
      30_000,
    );
  } catch (error) {
    // What the page last showed and said (a preview's error is in its caption), for a failure that says why.
    const captions = await page.evaluate('[...document.querySelectorAll("figcaption")].map((caption) => caption.textContent).join(" | ")').catch(() => 'unreadable');
    throw new Error(`${(error as Error).message}: the preview last showed ${seen}, the page said "${String(captions)}"`);
  }
};

/** A control by its role and accessible name, as assistive technology finds it. */
const field = (name: string, role = 'textbox') => page.locator(`::-p-aria([name="${name}"][role="${role}"])`);

/**
 * Replaces what the control holds by typing `text` key by key, as a person would: all of it
 * selected with the keyboard, then typed over. Locator.fill empties the control behind React's back
 * first, and a re-render landing before the first key (the form taking a component just added) put
 * the old value back under the typing ("TextStudio" for "Studio").
 */
const typeInto = async (name: string, text: string, role = 'textbox') => {
  const control = await field(name, role).waitHandle();
  await control.focus();
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await control.type(text);
};

const createTemplate = async (values: { name: string; editor: string; width: number; height: number; outputFormat?: string; duration?: number }) => {
  await page.goto(`${app.url}/studio/#/templates`);
  await field('Name').fill(values.name);
  await field('Editor', 'combobox').fill(values.editor);
  await typeInto('Width', String(values.width), 'spinbutton');
  await typeInto('Height', String(values.height), 'spinbutton');
  if (values.outputFormat) await field('Output format', 'combobox').fill(values.outputFormat);
  if (values.duration) await typeInto('Duration (ms)', String(values.duration), 'spinbutton');
  await field('Create', 'button').click();
  // Page functions are written as text: this file is type-checked for Node, without the DOM's names.
  await page.waitForFunction('location.hash.startsWith("#/templates/")');
  return decodeURIComponent(String(await page.evaluate('location.hash.slice("#/templates/".length)')));
};

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker', studioDir });
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'], defaultViewport: { width: 1280, height: 720 } });
  page = await browser.newPage();
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('dialog', (dialog) => void dialog.accept());
  const response = await page.goto(`${app.url}/studio`);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.locator('#api-key').fill(app.apiKey);
  await field('Open the studio', 'button').click();
  await page.waitForSelector('.create');
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the template studio', () => {
  it('previews an html template as it is typed: the pixels follow the HTML and the sample data', async () => {
    const templateId = await createTemplate({ name: 'Studio card', editor: 'html-editor', width: 400, height: 200 });
    await typeInto('HTML', '<div style="position:fixed;inset:0;background:#ff0000"></div>');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [255, 0, 0], 'a red preview');

    // A merge field becomes a sample-data input; what is typed there reaches the preview.
    await typeInto('HTML', '<div style="position:fixed;inset:0;background:{{bg}}"></div>');
    await field('bg').wait();
    await typeInto('bg', '#0000ff');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 0, 255], 'a blue preview');

    const content = await app.call('GET', `/api/v2/my-templates/${templateId}/html-editor`);
    expect(content.body).toMatchObject({ html: '<div style="position:fixed;inset:0;background:{{bg}}"></div>', sampleData: { bg: '#0000ff' } });
  });

  it('lists the versions of a template: previews an old one, publishes it while editing goes on, restores one', async () => {
    const templateId = await createTemplate({ name: 'Versioned', editor: 'html-editor', width: 200, height: 100 });
    const versionNow = async () => (await app.call('GET', `/api/v2/my-templates/${templateId}`)).body.version as number;
    await typeInto('HTML', '<div style="position:fixed;inset:0;background:#ff0000"></div>');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [255, 0, 0], 'a red preview');
    const red = await versionNow();
    await typeInto('HTML', '<div style="position:fixed;inset:0;background:#00ff00"></div>');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 255, 0], 'a green preview');
    const green = await versionNow();

    await field(`Preview version ${red}`, 'button').click();
    await waitForColour('[data-testid=version-preview]', 0.5, 0.5, [255, 0, 0], 'the red version previewed');

    await field(`Publish version ${red}`, 'button').click();
    await page.waitForSelector(`tr[data-version="${red}"][aria-current="true"]`);
    expect((await app.call('GET', `/api/v2/my-templates/${templateId}`)).body.publishedVersion).toBe(red);
    // The editor's preview follows the typing, not the published version.
    await typeInto('HTML', '<div style="position:fixed;inset:0;background:#0000ff"></div>');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 0, 255], 'a blue preview while version red is published');

    await field(`Restore version ${green}`, 'button').click();
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 255, 0], 'the restored green version in the editor');
    expect(await page.$eval('::-p-aria([name="HTML"][role="textbox"])', (element) => (element as unknown as { value: string }).value)).toContain('#00ff00');
    const content = await app.call('GET', `/api/v2/my-templates/${templateId}/html-editor`);
    expect(content.body.html).toContain('#00ff00');
  });

  it("never runs a template's HTML in the studio itself", async () => {
    await createTemplate({ name: 'Hostile', editor: 'html-editor', width: 200, height: 100 });
    await typeInto('HTML', '<img src="x" onerror="window.parent.__studioPwned = 1"><script>window.parent.__studioPwned = 2</script><p style="background:#00ff00;position:fixed;inset:0">x</p>');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 255, 0], 'the hostile template rendered, as an image');
    expect(await page.evaluate('typeof window.__studioPwned')).toBe('undefined');
  });

  it('builds a canvas template from a TEXT and a QR_CODE component, moved and resized by dragging, and renders it', async () => {
    const templateId = await createTemplate({ name: 'Studio canvas', editor: 'canvas-editor', width: 600, height: 300 });
    await field('New component', 'combobox').fill('TEXT');
    await page.locator('.add button').click();
    await field('text (text)').wait();
    await typeInto('text (text)', 'Studio');
    await typeInto('fontSize (number)', '48', 'spinbutton');
    // A property of a fixed set is a select of its values.
    await field('fit (select)', 'combobox').fill('shrink');

    await field('New component', 'combobox').fill('QR_CODE');
    await page.locator('.add button').click();
    await field('value (text)').wait();
    await typeInto('value (text)', 'studio-e2e');

    const savedQr = (what: string, holds: (qr: Record<string, any>) => boolean) =>
      waitFor(what, async () => {
        const { body } = await app.call('GET', `/api/v2/my-templates/${templateId}/components`);
        const qr = body.components.find((component: { id: string }) => component.id === 'qr-code1');
        return qr && holds(qr) ? body : undefined;
      });
    /** Presses on an element's centre and drags it by (dx, dy) screen pixels. */
    const drag = async (selector: string, dx: number, dy: number) => {
      const box = (await (await page.waitForSelector(selector))?.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2 + dy, { steps: 8 });
      await page.mouse.up();
    };

    // Drag the QR code to the right half; once that is saved (and the box redrawn there), drag its corner to make it bigger.
    await drag('[data-component="qr-code1"]', 420, 20);
    await savedQr('the moved QR code saved', (qr) => qr.x > 300 && qr.value === 'studio-e2e');
    await drag('[data-handle="qr-code1"]', 60, 60);
    const saved = await savedQr('the resized QR code saved', (qr) => qr.x > 300 && qr.width > 100);
    const qr = saved.components.find((component: { id: string }) => component.id === 'qr-code1');
    expect(qr.height).toBe(qr.width);
    expect(saved.components.find((component: { id: string }) => component.id === 'text1')).toMatchObject({ type: 'TEXT', text: 'Studio', fontSize: 48, fit: 'shrink' });

    // The preview is the service's render: the QR code decodes from its pixels and the text is dark ink.
    const pixels = await waitFor('a preview with the QR code where it was dragged', async () => {
      const element = await page.$('[data-testid=preview]');
      const shot = element && (await pixelsOf(element));
      const decoded = shot && decodeQr(shot.rgba, shot.width, shot.height);
      return shot && decoded?.data === 'studio-e2e' && decoded.location.topLeftCorner.x > shot.width / 2 ? shot : undefined;
    });
    const scale = pixels.width / 600;
    const text = saved.components.find((component: { id: string }) => component.id === 'text1');
    let ink = 0;
    for (let x = text.x; x < text.x + text.width; x += 2) {
      for (let y = text.y; y < text.y + text.height; y += 2) if (pixels.at(x * scale, y * scale).every((channel) => channel < 90)) ink += 1;
    }
    expect(ink).toBeGreaterThan(50);
    // Under the preview, what fitting made of the text: it fits at its own size.
    await waitFor('the fitted size under the preview', async () => ((await page.$eval('ul.fitted', (list) => list.textContent).catch(() => '')) === 'text1: 48 px, 1 line' ? true : undefined));
    if (process.env.STUDIO_SCREENSHOT) await page.screenshot({ path: process.env.STUDIO_SCREENSHOT as `${string}.png` });
  });

  it('animates a canvas-html component from the animation fields, renders the video with its progress, and plays it', async () => {
    const templateId = await createTemplate({ name: 'Studio video', editor: 'canvas-html', width: 320, height: 180, outputFormat: 'mp4', duration: 1000 });
    await field('New component', 'combobox').fill('RECTANGLE');
    await page.locator('.add button').click();
    await field('fill (color)').wait();
    await typeInto('fill (color)', '#00ff00');
    await typeInto('width', '320', 'spinbutton');
    await typeInto('height', '180', 'spinbutton');
    await typeInto('x', '0', 'spinbutton');
    await typeInto('y', '0', 'spinbutton');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [0, 255, 0], 'a green still preview');

    // A fade-in entry over the first 300 ms, from the animation fields: the still (time 0) shows the page without it.
    await field('Add entry', 'button').click();
    await typeInto('duration (ms)', '300', 'spinbutton');
    await waitForColour('[data-testid=preview]', 0.5, 0.5, [255, 255, 255], 'a still preview before the fade-in');
    await waitFor('the entry saved as the API takes it', async () => {
      const { body } = await app.call('GET', `/api/v2/my-templates/${templateId}/components`);
      const animation = body.components[0]?.animation;
      return isDeepStrictEqual(animation, { enter: { offset: 0, duration: 300, easing: 'ease-out', from: { opacity: 0 } } }) ? animation : undefined;
    });

    // From the keyboard: the form above may still grow or shrink as the saved template comes back, and move a mouse target.
    await (await page.waitForSelector('::-p-aria([name="Render mp4 (1000 ms)"][role="button"])'))!.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#video-progress');
    const video = await page.waitForSelector('[data-testid=video]', { timeout: 60_000 });
    await page.waitForFunction('(() => { const video = document.querySelector("[data-testid=video]"); return video.currentTime > 0.2 && !video.paused; })()', { timeout: 30_000 });

    // Paused at known times, the frames follow the animation: white at the start, green once faded in.
    const frameAt = async (seconds: number) => {
      await page.evaluate(`(() => { const video = document.querySelector("[data-testid=video]"); video.pause(); video.currentTime = ${seconds}; return new Promise((resolve) => video.addEventListener("seeked", resolve, { once: true })); })()`);
      const frame = await pixelsOf(video!);
      return frame.at(frame.width / 2, frame.height / 2);
    };
    expect(near(await frameAt(0.8), [0, 255, 0], 60)).toBe(true);
    expect(near(await frameAt(0), [255, 255, 255], 60)).toBe(true);
  });

  it('lists the renders with status, format and credits, and the usage of the organization', async () => {
    await page.goto(`${app.url}/studio/#/results`);
    const row = await page.waitForSelector('tr[data-result] >>> ::-p-text(mp4)');
    expect(row).not.toBeNull();
    const rows = await page.$$eval('tr[data-result]', (found) => found.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const videoRow = rows.find((cells) => cells[3] === 'mp4');
    expect(videoRow?.[2]).toBe('done');
    expect(Number(videoRow?.[4])).toBeGreaterThan(0);

    await page.goto(`${app.url}/studio/#/usage`);
    const used = await page.waitForSelector('[data-testid=credits-used]');
    expect(await used?.evaluate((element) => element.textContent)).toMatch(/^[1-9]\d* of \d+$/);

    // The key went out in headers only, never in a URL.
    expect(requestedUrls.filter((url) => url.includes(app.apiKey))).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
  });

  it('has no serious or critical accessibility violations on any of its pages (axe)', async () => {
    // axe is injected as a script, which the studio's CSP would refuse: a second tab bypasses it for the audit only.
    const audit = await browser.newPage();
    try {
      await audit.setBypassCSP(true);
      await audit.goto(`${app.url}/studio/`);
      await audit.evaluate(`sessionStorage.setItem('render-studio.api-key', ${JSON.stringify(app.apiKey)})`);
      const templates = (await app.call('GET', '/api/v2/my-templates?size=50')).body as { identifier: string; editor: string }[];
      const html = templates.find((template) => template.editor === 'html-editor');
      const canvas = templates.find((template) => template.editor === 'canvas-html');
      const pages: [string, string][] = [
        ['#/templates', '.create'],
        [`#/templates/${html?.identifier}`, '[data-testid=preview]'],
        [`#/templates/${canvas?.identifier}`, '.component-form'],
        ['#/results', 'tr[data-result]'],
        ['#/usage', '[data-testid=credits-used]'],
      ];
      for (const [hash, ready] of pages) {
        await audit.goto(`${app.url}/studio/${hash}`);
        await audit.reload();
        await audit.waitForSelector(ready);
        await audit.addScriptTag({ path: axePath });
        const violations = (await audit.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map((violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`)) as string[];
        expect(violations, hash).toEqual([]);
      }
    } finally {
      await audit.close();
    }
  });

  it('forgets a key the service refuses (403) and asks for a key again, saying why', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${app.url}/studio/`);
      await tab.evaluate(`sessionStorage.setItem('render-studio.api-key', 'rk_revoked_or_never_issued_000000')`);
      await tab.goto(`${app.url}/studio/#/templates`);
      await tab.reload();
      // The page that made the call may say so too; the key page says why it asks again.
      const alert = await tab.waitForSelector('.key-page [role=alert]');
      expect(await alert?.evaluate((element) => element.textContent)).toMatch(/The service refused the key: Invalid API key/);
      expect(await tab.evaluate(`sessionStorage.getItem('render-studio.api-key')`)).toBeNull();
      expect(await tab.$('#api-key')).not.toBeNull();
    } finally {
      await tab.close();
    }
  });
});

