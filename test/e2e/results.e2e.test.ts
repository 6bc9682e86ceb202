import { randomBytes, randomUUID } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredits } from '../../application/credits/credits.js';
import type { FileStorage } from '../../application/ports/file-storage.js';
import { toEnvelopes } from '../../application/shared/command-handler.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import { API_KEY_SCOPES } from '../../domain/accounts/account-events.js';
import { renderStream, type RenderEvent } from '../../domain/renders/render-events.js';
import { createLocalFileStorage } from '../../infrastructure/storage/local-file-storage.js';
import { systemClock, uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { expectError } from '../support/expect-error.js';

let app: TestApp;
let storage: FileStorage;
beforeAll(async () => {
  app = await startTestApp();
  storage = createLocalFileStorage(path.join(app.runtime.config.DATA_DIR, 'files'));
});
afterAll(async () => {
  await app?.close();
});

const systemContext = (orgId: string): RequestContext => ({
  caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES },
  correlationId: randomUUID(),
});

/** A new organization, its id and a key. */
const newOrganization = async () => {
  const key = await app.newOrganizationKey();
  const caller = await app.runtime.services.accounts.authenticate(key);
  if (!caller) throw new Error('the new key does not authenticate');
  return { key, orgId: caller.orgId };
};

let clockSeconds = 0;

interface SeedOptions {
  readonly templateId?: string;
  readonly templateName?: string;
  readonly batchName?: string;
  readonly metadata?: Record<string, unknown>;
  readonly expires?: number;
  readonly requestedAt?: Date;
  readonly bytes?: number;
  readonly fileName?: string;
  /** Leaves the render pending: no completion, no file. */
  readonly pending?: boolean;
  /** Skips the wait for the read models, as the render hot path does. */
  readonly noWait?: boolean;
}

/**
 * Seeds a finished render the way the render workflow records one (events, then the file in
 * storage), since these tests are about results and not about rendering.
 */
const seedResult = async (orgId: string, options: SeedOptions = {}) => {
  const requestId = uuidV7Ids.next();
  const fileName = options.fileName ?? 'card.png';
  const storageKey = `${orgId}/${requestId}/${fileName}`;
  const content = randomBytes(options.bytes ?? 1000);
  // Distinct, increasing times make the newest-first order of the list deterministic.
  const requestedAt = options.requestedAt ?? new Date(Date.parse('2026-01-01T00:00:00Z') + 1000 * clockSeconds++);
  const requested = renderRequested({
    requestId,
    orgId,
    requestedAt: requestedAt.toISOString(),
    batchName: options.batchName ?? null,
    metadata: options.metadata ?? null,
    spec: {
      templateId: options.templateId ?? 'tpl-main',
      templateName: options.templateName ?? 'Main card',
      fileName,
      expires: options.expires ?? null,
    },
  });
  const events: RenderEvent[] = [requested];
  if (!options.pending) {
    await storage.put(storageKey, content, 'image/png');
    events.push(
      renderCompleted({
        requestId,
        completedAt: new Date(requestedAt.getTime() + 500).toISOString(),
        storageKey,
        fileName,
        bytes: content.length,
        width: 640,
        height: 320,
      }),
    );
  }
  const { position } = await app.runtime.eventStore.append(
    renderStream(requestId),
    toEnvelopes(events, systemContext(orgId), { clock: systemClock, ids: uuidV7Ids }),
    'no-stream',
  );
  if (!options.noWait) expect(await app.runtime.projections.waitFor(position)).toBe(true);
  return { requestId, content, storageKey, requestedAt };
};

/** Hrefs carry the configured public origin; the test server listens on another port. */
const fetchHref = (href: string) => {
  const url = new URL(href);
  return app.call('GET', `${url.pathname}${url.search}`, { key: null });
};

const fileOnDisk = async (storageKey: string) =>
  access(path.join(app.runtime.config.DATA_DIR, 'files', storageKey)).then(
    () => true,
    () => false,
  );

describe('GET /api/v2/results', () => {
  it('pages newest first in the Spring page wrapper', async () => {
    const { key, orgId } = await newOrganization();
    const seeded = [];
    for (let index = 0; index < 5; index++) seeded.push(await seedResult(orgId));
    const newestFirst = seeded.map((result) => result.requestId).reverse();

    const first = await app.call('GET', '/api/v2/results?size=2', { key });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      content: [expect.any(Object), expect.any(Object)],
      pageable: { sort: { empty: true, unsorted: true, sorted: false }, offset: 0, pageNumber: 0, pageSize: 2, unpaged: false, paged: true },
      totalPages: 3,
      totalElements: 5,
      last: false,
      size: 2,
      number: 0,
      sort: { empty: true, unsorted: true, sorted: false },
      numberOfElements: 2,
      first: true,
      empty: false,
    });
    expect(first.body.content[0]).toEqual({
      identifier: newestFirst[0],
      href: expect.stringMatching(new RegExp(`/files/${newestFirst[0]}/card\\.png$`)),
      width: 640,
      height: 320,
      templateName: 'Main card',
      createdAt: seeded[4]!.requestedAt.toISOString(),
    });

    const last = await app.call('GET', '/api/v2/results?size=2&page=2', { key });
    expect(last.body).toMatchObject({ number: 2, numberOfElements: 1, first: false, last: true, empty: false, totalPages: 3 });
    expect(last.body.pageable).toMatchObject({ offset: 4, pageNumber: 2 });

    const pages = await Promise.all([0, 1, 2].map((page) => app.call('GET', `/api/v2/results?size=2&page=${page}`, { key })));
    expect(pages.flatMap((page) => page.body.content.map((item: { identifier: string }) => item.identifier))).toEqual(newestFirst);

    const beyond = await app.call('GET', '/api/v2/results?size=2&page=9', { key });
    expect(beyond.body).toMatchObject({ content: [], empty: true, last: true, numberOfElements: 0, totalElements: 5 });

    const defaults = await app.call('GET', '/api/v2/results', { key });
    expect(defaults.body).toMatchObject({ size: 20, number: 0, totalPages: 1, first: true, last: true, numberOfElements: 5 });
  });

  it('filters by template and batch', async () => {
    const { key, orgId } = await newOrganization();
    const spring = await seedResult(orgId, { templateId: 'tpl-a', batchName: 'spring' });
    const summer = await seedResult(orgId, { templateId: 'tpl-a', batchName: 'summer' });
    const other = await seedResult(orgId, { templateId: 'tpl-b', batchName: 'spring' });
    const ids = async (query: string) =>
      (await app.call('GET', `/api/v2/results${query}`, { key })).body.content.map((item: { identifier: string }) => item.identifier);

    expect(await ids('?template=tpl-a')).toEqual([summer.requestId, spring.requestId]);
    expect(await ids('?batch=spring')).toEqual([other.requestId, spring.requestId]);
    expect(await ids('?template=tpl-a&batch=spring')).toEqual([spring.requestId]);
    expect(await ids('?template=unknown')).toEqual([]);
    expect((await app.call('GET', '/api/v2/results?batch=spring', { key })).body.totalElements).toBe(2);
  });

  it.each(['?size=51', '?size=0', '?page=-1', '?size=abc', '?template='])('answers 400 for %s', async (query) => {
    expectError(await app.call('GET', `/api/v2/results${query}`), 400, /query\./);
  });
});

describe('GET /api/v2/results/{identifier}', () => {
  it('answers the detailed result', async () => {
    const { key, orgId } = await newOrganization();
    const seeded = await seedResult(orgId, { batchName: 'launch', metadata: { campaign: 'x', n: 1 } });
    const response = await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      identifier: seeded.requestId,
      href: expect.stringMatching(new RegExp(`/files/${seeded.requestId}/card\\.png$`)),
      status: 'done',
      width: 640,
      height: 320,
      templateName: 'Main card',
      template: 'tpl-main',
      createdAt: seeded.requestedAt.toISOString(),
      completedAt: new Date(seeded.requestedAt.getTime() + 500).toISOString(),
      metadata: { campaign: 'x', n: 1 },
      batch: 'launch',
      format: 'png',
      cached: false,
      credits: 1,
      kind: 'template',
    });
  });

  it('shows a pending render without a size, and a failed one with its reason', async () => {
    const { key, orgId } = await newOrganization();
    const pending = await seedResult(orgId, { pending: true });
    const read = await app.call('GET', `/api/v2/results/${pending.requestId}`, { key });
    expect(read.body).toMatchObject({ identifier: pending.requestId, status: 'pending', cached: false });
    expect(read.body).not.toHaveProperty('width');
    expect(read.body).not.toHaveProperty('failureReason');

    const { position } = await app.runtime.eventStore.append(
      renderStream(pending.requestId),
      toEnvelopes([{ type: 'RenderFailed', data: { requestId: pending.requestId, reason: 'template script threw', failedAt: new Date().toISOString() } }], systemContext(orgId), {
        clock: systemClock,
        ids: uuidV7Ids,
      }),
      0,
    );
    await app.runtime.projections.waitFor(position);
    expect((await app.call('GET', `/api/v2/results/${pending.requestId}`, { key })).body).toMatchObject({
      status: 'failed',
      failureReason: 'template script threw',
      credits: 0,
    });
    expectError(await fetchHref(read.body.href), 404);
  });

  it('answers 404 for unknown results and for results of another organization', async () => {
    const owner = await newOrganization();
    const stranger = await newOrganization();
    const seeded = await seedResult(owner.orgId);
    expectError(await app.call('GET', `/api/v2/results/${randomUUID()}`, { key: owner.key }), 404);
    expectError(await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key: stranger.key }), 404);
    expectError(await app.call('DELETE', `/api/v2/results/${seeded.requestId}`, { key: stranger.key }), 404);
    expect((await app.call('GET', '/api/v2/results', { key: stranger.key })).body.totalElements).toBe(0);
    expect((await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key: owner.key })).status).toBe(200);
  });

  it('reads its write even before the read models caught up', async () => {
    const { key, orgId } = await newOrganization();
    await app.runtime.projections.stop();
    try {
      const seeded = await seedResult(orgId, { noWait: true });
      const response = await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key });
      expect(response.body).toMatchObject({ identifier: seeded.requestId, status: 'done', width: 640 });
      const file = await fetchHref(response.body.href);
      expect(file.status).toBe(200);
    } finally {
      await app.runtime.projections.start();
    }
  });
});

describe('result files', () => {
  it('serves the bytes inline with their content type, without an API key', async () => {
    const { key, orgId } = await newOrganization();
    const seeded = await seedResult(orgId, { fileName: 'my card é.png' });
    const { href } = (await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key })).body;
    expect(href).toContain('/my%20card%20%C3%A9.png');
    const response = await fetch(`${app.url}${new URL(href).pathname}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="my card _.png"; filename*=UTF-8''my%20card%20%C3%A9.png`);
    expect(Buffer.from(await response.arrayBuffer()).equals(seeded.content)).toBe(true);
    expectError(await app.call('GET', `/files/${seeded.requestId}/other.png`, { key: null }), 404);
    expectError(await app.call('GET', `/files/${randomUUID()}/card.png`, { key: null }), 404);
  });

  it('serves a signed link until it expires, then answers 403', async () => {
    const { key, orgId } = await newOrganization();
    const seeded = await seedResult(orgId, { expires: 2, requestedAt: new Date() });
    const { href } = (await app.call('GET', `/api/v2/results/${seeded.requestId}`, { key })).body;
    const url = new URL(href);
    const expiresAt = Number(url.searchParams.get('expires'));
    expect(expiresAt).toBe(Math.floor(seeded.requestedAt.getTime() / 1000) + 2);
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);

    const fresh = await fetchHref(href);
    expect(fresh.status).toBe(200);
    expectError(await app.call('GET', url.pathname, { key: null }), 403);
    const tampered = new URL(href);
    tampered.searchParams.set('expires', String(expiresAt + 3600));
    expectError(await fetchHref(tampered.href), 403);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt * 1000 - Date.now()) + 200));
    expectError(await fetchHref(href), 403, /signature/);
  });
});

describe('DELETE /api/v2/results/{identifier}', () => {
  it('deletes the result and its file: 404 for both afterwards', async () => {
    const { key, orgId } = await newOrganization();
    const kept = await seedResult(orgId);
    const doomed = await seedResult(orgId);
    const { href } = (await app.call('GET', `/api/v2/results/${doomed.requestId}`, { key })).body;
    expect((await fetchHref(href)).status).toBe(200);

    const deleted = await app.call('DELETE', `/api/v2/results/${doomed.requestId}`, { key });
    expect(deleted.status).toBe(200);
    expectError(await app.call('GET', `/api/v2/results/${doomed.requestId}`, { key }), 404);
    expectError(await fetchHref(href), 404);
    expect(await fileOnDisk(doomed.storageKey)).toBe(false);
    expect(await fileOnDisk(kept.storageKey)).toBe(true);
    expect((await app.call('GET', '/api/v2/results', { key })).body.content.map((item: { identifier: string }) => item.identifier)).toEqual([kept.requestId]);
    expectError(await app.call('DELETE', `/api/v2/results/${doomed.requestId}`, { key }), 404);
    const events = await app.runtime.eventStore.readStream(renderStream(doomed.requestId));
    expect(events.map((event) => event.type)).toEqual(['RenderRequested', 'RenderCompleted', 'ResultDeleted']);
  });

  it('answers 409 for a render still in progress', async () => {
    const { key, orgId } = await newOrganization();
    const pending = await seedResult(orgId, { pending: true });
    expectError(await app.call('DELETE', `/api/v2/results/${pending.requestId}`, { key }), 409);
  });
});

describe('GET /api/v1/usage', () => {
  it('reports credits after charges and refunds, uploads after stores and deletions, and the plan', async () => {
    const { key, orgId } = await newOrganization();
    const credits = createCredits({ eventStore: app.runtime.eventStore, clock: systemClock, ids: uuidV7Ids });
    const requestedAt = new Date().toISOString();
    const ledger = async (move: 'charge' | 'refund', requestId: string, amount = 0) => {
      await credits[move]({ orgId, requestId, credits: amount, requestedAt });
      await app.runtime.projections.waitFor((await app.runtime.eventStore.headPosition()) ?? -1);
    };
    await ledger('charge', 'r1', 1);
    await ledger('charge', 'r2', 30);
    await ledger('charge', 'r3', 1);
    await ledger('refund', 'r2');
    // A retried refund gives nothing back twice.
    await ledger('refund', 'r2');
    const small = await seedResult(orgId, { bytes: 1200 });
    await seedResult(orgId, { bytes: 3400 });
    expect((await app.call('DELETE', `/api/v2/results/${small.requestId}`, { key })).status).toBe(200);

    const response = await app.call('GET', '/api/v1/usage', { key });
    expect(response.status).toBe(200);
    const nextRenewalAt = (await app.runtime.services.accounts.getAccount(orgId))?.nextRenewalAt;
    expect(nextRenewalAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(response.body).toEqual({
      identifier: orgId,
      credits: { used: 2, total: 1000, nextRenewalAt, renewalAmount: 1000 },
      uploads: { used: 3400, total: 1024 * 1024 * 1024 },
      plan: { name: 'free', status: 'active', nextBillingAt: nextRenewalAt },
    });
  });

  it('answers 403 without a valid key', async () => {
    expectError(await app.call('GET', '/api/v1/usage', { key: null }), 403);
    expectError(await app.call('GET', '/api/v1/usage', { key: 'rk_wrong' }), 403);
  });
});

describe('GET /api/v1/fonts', () => {
  it('lists the installed font families with every spec field', async () => {
    const response = await app.call('GET', '/api/v1/fonts');
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);
    for (const font of response.body) {
      expect(font).toEqual({
        originalName: expect.any(String),
        family: expect.any(String),
        variants: expect.any(Array),
        defaultVariant: expect.any(String),
        subsets: ['latin'],
        category: expect.stringMatching(/^(serif|sans-serif|monospace|display|handwriting)$/),
        source: expect.stringMatching(/^(GOOGLE|CUSTOM)$/),
        size: expect.any(Number),
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(font.variants).toContain(font.defaultVariant);
      expect(font.size).toBeLessThan(2 ** 31);
    }
    const dejaVu = response.body.find((font: { family: string }) => font.family === 'DejaVu Sans');
    expect(dejaVu).toMatchObject({ source: 'CUSTOM', category: 'sans-serif', defaultVariant: 'regular' });
    expect(dejaVu.variants).toEqual(expect.arrayContaining(['regular', 'italic', '700', '700italic']));
    expect(response.body.find((font: { family: string }) => font.family === 'DejaVu Sans Mono')?.category).toBe('monospace');
    expectError(await app.call('GET', '/api/v1/fonts', { key: null }), 403);
  });
});

describe('OpenAPI document', () => {
  it('covers results, usage, fonts and files', async () => {
    const document = (await app.call('GET', '/openapi.json', { key: null })).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/v2/results', '/api/v2/results/{identifier}', '/api/v1/usage', '/api/v1/fonts', '/files/{requestId}/{fileName}']),
    );
    const size = document.paths['/api/v2/results'].get.parameters.find((parameter: { name: string }) => parameter.name === 'size');
    expect(size.schema).toMatchObject({ maximum: 50 });
    expect(document.paths['/files/{requestId}/{fileName}'].get.security).toEqual([]);
  });
});
