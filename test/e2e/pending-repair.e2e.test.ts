import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { expectError } from '../support/expect-error.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Nothing stays pending for ever: a request recorded but never started (Temporal unreachable, or a
 * crash between the two) and one whose workflow ended without an outcome are found and failed, with
 * any credits refunded, by whichever process follows the log.
 */
let databaseUrl: string;
let repairing: TestApp | undefined;
let receiver: Server;
let receiverUrl: string;
const posts: { path: string; body: any }[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await repairing?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/*
 * A pass looks at requests older than the grace only: one younger may be between its append and its
 * workflow's start, which a loaded machine stretches to a second or more, and a pass in that window
 * would fail a request whose workflow is about to run.
 */
const startRepairing = () =>
  startTestApp({
    rendering: 'worker',
    env: { DATABASE_URL: databaseUrl, PENDING_REPAIR_INTERVAL_MS: '200', PENDING_REPAIR_AFTER_MS: '3000', ALLOWED_PRIVATE_HOSTS: '127.0.0.1' },
  });

const htmlTemplate = async (app: TestApp, key: string, html: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { key, body: { name: 'Pending', editor: 'html-editor', width: 100, height: 100 } });
  const id = created.body.identifier as string;
  expect((await app.call('PUT', `/api/v2/my-templates/${id}/html-editor`, { key, body: { html } })).status).toBe(200);
  return id;
};

const resultOf = async (app: TestApp, key: string, requestId: string) => (await app.call('GET', `/api/v2/results/${requestId}`, { key })).body;

describe('requests left pending', () => {
  let key: string;
  let requestId: string;

  it('answers 503 naming the request when its workflow cannot be started', async () => {
    // A process that records requests but has no Temporal to start them: what a Temporal outage looks like.
    const recording = await startTestApp({ rendering: 'off', env: { DATABASE_URL: databaseUrl } });
    try {
      key = await recording.newOrganizationKey();
      const templateId = await htmlTemplate(recording, key, '<p>never</p>');
      const refused = await recording.call('POST', '/api/v2/render', { key, body: { template: templateId } });
      expectError(refused, 503, /not started .*it will be marked failed and nothing is charged/);
      requestId = /requestId (\S+):/.exec(refused.body.errors.join('\n'))?.[1] ?? '';
      const pending = await waitFor('the pending result', async () => {
        const result = await resultOf(recording, key, requestId);
        return result?.status === 'pending' ? result : undefined;
      });
      expect(pending.identifier).toBe(requestId);
      expectError(await recording.call('DELETE', `/api/v2/results/${requestId}`, { key }), 409);
    } finally {
      await recording.close();
    }
  });

  it('fails it, uncharged, once a process with Temporal follows the log; it can then be deleted', async () => {
    repairing = await startRepairing();
    const failed = await waitFor('the repaired result', async () => {
      const result = await resultOf(repairing!, key, requestId);
      return result?.status === 'failed' ? result : undefined;
    });
    expect(failed.failureReason).toBe('The render could not be started; nothing was charged');
    expect((await repairing.call('GET', '/api/v1/usage', { key })).body.credits.used).toBe(0);
    expect((await repairing.call('DELETE', `/api/v2/results/${requestId}`, { key })).status).toBe(200);
  });

  it('fails a request whose workflow was terminated mid-render, refunds its charge and tells its webhook', async () => {
    const app = repairing!;
    const ownKey = await app.newOrganizationKey();
    // Slow enough to be caught mid-render: the page takes five seconds to be ready.
    const templateId = await htmlTemplate(app, ownKey, '<p>slow</p>');
    const accepted = await app.call('POST', '/api/v2/render', {
      key: ownKey,
      body: { template: templateId, waitTime: 5000, cache: false, webhookUrl: `${receiverUrl}/terminated` },
    });
    expect(accepted.status).toBe(200);
    const id = accepted.body.requestId as string;
    const charged = await waitFor('the charge', async () => {
      const used = (await app.call('GET', '/api/v1/usage', { key: ownKey })).body.credits.used as number;
      return used > 0 ? used : undefined;
    });
    expect(charged).toBeGreaterThan(0);

    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      await new Client({ connection }).workflow.getHandle(id).terminate('operator stopped it');
    } finally {
      await connection.close();
    }

    const failed = await waitFor('the repaired result', async () => {
      const result = await resultOf(app, ownKey, id);
      return result?.status === 'failed' ? result : undefined;
    });
    expect(failed.failureReason).toBe('The render stopped before it recorded an outcome; its credits were refunded');
    await waitFor('the refund', async () => ((await app.call('GET', '/api/v1/usage', { key: ownKey })).body.credits.used === 0 ? true : undefined));
    const [post] = await waitFor('the webhook', () => {
      const received = posts.filter((post) => post.path === '/terminated');
      return received.length > 0 ? received : undefined;
    });
    expect(post?.body).toMatchObject({ requestId: id });
  });
});
