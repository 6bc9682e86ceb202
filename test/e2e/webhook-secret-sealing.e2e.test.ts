import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEALED_SECRET } from '../../infrastructure/security/aes-gcm-secret-sealer.js';
import type { AppRouter } from '../../interfaces/trpc/app-router.js';
import { insertStoredEvents } from '../fixtures/legacy-event-log.js';
import { createTestDatabase } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';
import { expectedSignature, signaturesOf, verifyWithLibrary } from '../support/standard-webhooks.js';

/*
 * Webhook secrets are sealed before they enter the account stream: the database (event log and
 * read models alike) never holds one in the clear, while the API shows it and deliveries are signed
 * with it. The key lives in DATA_DIR: a restart on the same folder opens the secrets, another folder cannot.
 */

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let dataDir: string;
let databaseUrl: string;
let app: TestApp;
let receiver: Server;
let receiverBase: string;
const received: Received[] = [];
/** What the API showed: no copy of these may be in the database. */
const shown: string[] = [];

const trpc = (key: string) => createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { 'x-api-key': key } })] });

const sql = async <T>(query: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await query(client);
  } finally {
    await client.end();
  }
};

/** Renders through `key`'s organization with a webhook and returns the one delivery the receiver got. */
const deliveredWith = async (key: string): Promise<Received> => {
  const call = (method: string, pathname: string, body: unknown) => app.call(method, pathname, { key, body });
  const template = (await call('POST', '/api/v2/my-templates', { name: 'Sealed', width: 80, height: 40, editor: 'html-editor' })).body.identifier;
  await call('PUT', `/api/v2/my-templates/${template}/html-editor`, { html: '<p>{{t}}</p>', css: '' });
  const pathname = `/hook/${randomUUID()}`;
  const render = await call('POST', '/api/v2/render', { template, data: { t: 'x' }, outputFormat: 'png', cache: false, webhookUrl: `${receiverBase}${pathname}` });
  expect(render.status).toBe(200);
  return waitFor('the webhook', () => received.find((post) => post.path === pathname), 60_000);
};

/**
 * The signatures a delivery carries, each as a receiver computes it; and verified by the
 * standardwebhooks library too for secrets in its standard base64 (older secrets were base64url,
 * which only lenient decoders such as Node's accept).
 */
const expectSignedWith = (post: Received, secrets: readonly string[]) => {
  expect(signaturesOf(post)).toEqual(secrets.map((secret) => expectedSignature(secret, post)));
  for (const secret of secrets.filter((secret) => /^whsec_[A-Za-z0-9+/]+=*$/.test(secret))) expect(verifyWithLibrary(secret, post)).toEqual(JSON.parse(post.body));
};

/** Every row of every table of the database, as text, that contains `needle`. */
const rowsContaining = (needle: string) =>
  sql(async (client) => {
    const tables = await client.query<{ name: string }>(
      `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
       where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    expect(tables.rows.map((row) => row.name)).toEqual(expect.arrayContaining(['public.events', 'public.accounts']));
    const hits: string[] = [];
    for (const { name } of tables.rows) {
      const found = await client.query<{ row: string }>(`select t::text as row from ${name} t where strpos(t::text, $1) > 0`, [needle]);
      hits.push(...found.rows.map((row) => `${name}: ${row.row}`));
    }
    return hits;
  });

const webhookSecretRows = (orgId: string) =>
  sql(async (client) =>
    (
      await client.query<{ type: string; data: { secret: unknown }; version: number }>(
        `select type, data, (metadata->>'schemaVersion')::int as version from events
         where stream_name = $1 and type like 'WebhookSecret%' order by revision`,
        [`account-${orgId}`],
      )
    ).rows,
  );

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sealed-secrets-'));
  databaseUrl = await createTestDatabase();
  app = await startTestApp({ rendering: 'worker', env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('sealed webhook secrets', () => {
  let orgId: string;
  let rotated: string;

  it('issued and rotated through the API, are nowhere in the database in the clear, and sign deliveries', { timeout: 90_000 }, async () => {
    const client = trpc(app.apiKey);
    orgId = (await client.ping.query()).orgId;
    const { secret: issued } = await client.account.webhookSecret.query();
    ({ secret: rotated } = await client.account.rotateWebhookSecret.mutate());
    shown.push(issued, rotated);
    expect(issued).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await client.account.webhookSecret.query()).secret).toBe(rotated);

    expectSignedWith(await deliveredWith(app.apiKey), [rotated, issued]);

    const rows = await webhookSecretRows(orgId);
    expect(rows.map((row) => [row.type, row.version])).toEqual([
      ['WebhookSecretIssued', 2],
      ['WebhookSecretRotated', 2],
    ]);
    for (const row of rows) expect(row.data.secret).toEqual({ sealed: expect.stringMatching(SEALED_SECRET) });
    for (const secret of shown) {
      // The random part alone, too: no encoding of the secret may leak it either.
      expect(await rowsContaining(secret)).toEqual([]);
      expect(await rowsContaining(secret.slice('whsec_'.length))).toEqual([]);
    }
  });

  it('reads a secret written in the clear by an older version, signs with it through the grace, and rotates it into a sealed one', { timeout: 90_000 }, async () => {
    const legacyOrg = `org-plain-${randomUUID()}`;
    const legacySecret = `whsec_${randomBytes(32).toString('base64url')}`;
    const metadata = (eventId: string) => ({ eventId, schemaVersion: 1, occurredAt: '2025-01-01T00:00:00.000Z', orgId: legacyOrg, actor: 'system', correlationId: 'c', causationId: 'c' });
    const plan = { name: 'free', status: 'active', credits: 100, renewalAmount: 100, nextRenewalAt: '2099-01-01', uploadsBytes: 1_048_576 };
    await insertStoredEvents(databaseUrl, [
      { streamName: `account-${legacyOrg}`, type: 'AccountOpened', data: { orgId: legacyOrg, name: 'Plain', plan, openedAt: '2025-01-01T00:00:00.000Z' }, metadata: metadata(randomUUID()) },
      { streamName: `account-${legacyOrg}`, type: 'WebhookSecretIssued', data: { orgId: legacyOrg, secret: legacySecret, issuedAt: '2025-01-01T00:00:00.000Z' }, metadata: metadata(randomUUID()) },
    ]);
    expect(await app.runtime.services.accounts.webhookSecret(legacyOrg)).toEqual({ orgId: legacyOrg, secret: legacySecret });

    const { secret: sealedOne } = await app.runtime.services.accounts.rotateWebhookSecret(legacyOrg);
    const { key } = await app.runtime.services.accounts.issueApiKey(legacyOrg, { label: 'legacy' });
    expect((await trpc(key).account.webhookSecret.query()).secret).toBe(sealedOne);
    expectSignedWith(await deliveredWith(key), [sealedOne, legacySecret]);

    const rows = await webhookSecretRows(legacyOrg);
    // The old event stays as it was written: the log is never rewritten, which is why rotating matters.
    expect(rows).toEqual([
      { type: 'WebhookSecretIssued', data: { orgId: legacyOrg, secret: legacySecret, issuedAt: '2025-01-01T00:00:00.000Z' }, version: 1 },
      { type: 'WebhookSecretRotated', data: { orgId: legacyOrg, secret: { sealed: expect.stringMatching(SEALED_SECRET) }, rotatedAt: expect.any(String) }, version: 2 },
    ]);
    expect(await rowsContaining(sealedOne)).toEqual([]);
    // The scan finds a secret that is there, and only in the event that holds it: no read model copied it.
    expect(await rowsContaining(legacySecret)).toEqual([expect.stringMatching(/^public\.events: \(\d+,account-org-plain-[^,]+,1,WebhookSecretIssued,/)]);
  });

  it('keeps its key in DATA_DIR: a restart on the same folder reads the same secrets, one on another folder cannot', { timeout: 90_000 }, async () => {
    const keyFile = path.join(dataDir, 'secrets-encryption.key');
    const key = await readFile(keyFile, 'utf8');
    expect(key).toMatch(/^local-[0-9a-f]{8}:[\w-]{43}$/);
    await app.close();

    app = await startTestApp({ env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl } });
    expect(await readFile(keyFile, 'utf8')).toBe(key);
    expect(await app.runtime.services.accounts.webhookSecret(orgId)).toEqual({ orgId, secret: rotated });
    await app.close();

    // The same database with another folder's key: the log alone does not give the secrets away.
    app = await startTestApp({ env: { DATABASE_URL: databaseUrl } });
    await expect(app.runtime.services.accounts.webhookSecret(orgId)).rejects.toThrow(/sealed with key "local-[0-9a-f]{8}", which is not configured/);
  });
});
