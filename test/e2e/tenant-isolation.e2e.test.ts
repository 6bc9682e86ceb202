import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Warm pages are reused across renders, so what one render leaves behind must never reach another
 * organization's. One organization's template leaves state everywhere a page can (cookies, local
 * and session storage, IndexedDB, the HTTP cache of the document's origin, globals); a probe
 * template paints the page red when it finds any of it and green when it finds none.
 */

const LEAVE = `<script>
  document.cookie = 'left=1; max-age=3600';
  localStorage.setItem('left', '1');
  sessionStorage.setItem('left', '1');
  window.name = 'left';
  window.leftBehind = 1;
  indexedDB.open('left', 1).onupgradeneeded = (event) => event.target.result.createObjectStore('left');
</script><p>left</p>`;

const PROBE = `<script>
  const found = [];
  if (document.cookie.includes('left=1')) found.push('cookie');
  if (localStorage.getItem('left')) found.push('localStorage');
  if (sessionStorage.getItem('left')) found.push('sessionStorage');
  if (window.leftBehind) found.push('global');
  const paint = () => { document.body.style.background = found.length > 0 ? '#ff0000' : '#00ff00'; };
  indexedDB.databases().then((dbs) => { if (dbs.some((db) => db.name === 'left')) found.push('indexedDB'); paint(); }, paint);
  paint();
</script>`;

let app: TestApp;
let otherKey: string;

const template = async (key: string, html: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Isolation', width: 40, height: 40, editor: 'html-editor', outputFormat: 'png' } });
  expect(created.status).toBe(200);
  const id: string = created.body.identifier;
  expect((await app.call('PUT', `/api/v2/my-templates/${id}/html-editor`, { key, body: { html, css: '' } })).status).toBe(200);
  return id;
};

/** The colour of the rendered page's centre. */
const colourOf = async (key: string, templateId: string) => {
  const response = await fetch(`${app.url}/api/v2/render?output=image`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    // waitTime lets the IndexedDB lookup settle before the capture.
    body: JSON.stringify({ template: templateId, cache: false, waitTime: 200 }),
  });
  expect(response.status).toBe(200);
  const { data, info } = await sharp(Buffer.from(await response.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
  const offset = (20 * info.width + 20) * info.channels;
  return [...data.subarray(offset, offset + 3)];
};

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];

beforeAll(async () => {
  // One browser with one page: every render goes through the same renderer, the hardest case.
  app = await startTestApp({ rendering: 'worker', env: { BROWSERS: '1', PAGES_PER_BROWSER: '1' } });
  otherKey = await app.newOrganizationKey();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('tenant isolation between renders', () => {
  it("never lets an organization's template observe what another organization's render left", { timeout: 60_000 }, async () => {
    const leave = await template(app.apiKey, LEAVE);
    const ownProbe = await template(app.apiKey, PROBE);
    const otherProbe = await template(otherKey, PROBE);

    await colourOf(app.apiKey, leave);
    expect(await colourOf(otherKey, otherProbe)).toEqual(GREEN);
    // The probe can see state: the organization that left it finds its own, on its own warm page.
    expect(await colourOf(app.apiKey, ownProbe)).toEqual(RED);
    expect(await colourOf(otherKey, otherProbe)).toEqual(GREEN);
  });
});
