import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventStore } from '../../application/ports/event-store.js';
import { onTemplateStream } from '../../application/shared/stream-commands.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { systemClock, uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createTestDatabase } from '../support/database.js';
import { callApi } from '../support/http-call.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { killGroup, startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';

let databaseUrl: string;
let dataDir: string;
let apiKey: string;
let sql: pg.Pool;
let eventStore: EventStore;
const taskQueue = `crash-test-${randomBytes(6).toString('hex')}`;

/** `npm start` as a real child process on the test's database, data folder and Temporal task queue. */
const startService = () =>
  startServiceProcess('start', {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BOOTSTRAP_API_KEY: apiKey,
    // Events in the same PostgreSQL the test appends to, not an EventStoreDB the environment may name.
    EVENTSTORE_URL: '',
    // The run's Temporal server, so each start does not launch a dev server of its own.
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: taskQueue,
  });

const crash = async (service: ServiceProcess) => {
  killGroup(service.child);
  await service.exited;
  expect(service.child.signalCode).toBe('SIGKILL');
};

const call = (service: ServiceProcess, method: string, pathname: string, body?: unknown) => callApi(service.url, apiKey, method, pathname, body);

/** Every template of the caller, page by page. */
const listAll = async (service: ServiceProcess): Promise<{ identifier: string; name: string }[]> => {
  const all: { identifier: string; name: string }[] = [];
  for (let page = 0; ; page++) {
    const response = await call(service, 'GET', `/api/v2/my-templates?size=50&page=${page}`);
    expect(response.status).toBe(200);
    all.push(...response.body);
    if (response.body.length < 50) return all;
  }
};

const countBy = (ids: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-crash-'));
  apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
  sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
});

afterAll(async () => {
  await stopServiceProcesses();
  await eventStore?.close();
  await sql?.end();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the service as a real process, killed with SIGKILL', () => {
  it('catches up on restart with an event appended after the crash and before its projection', { timeout: 180_000 }, async () => {
    const first = await startService();
    const created = await call(first, 'POST', '/api/v2/my-templates', { name: 'Before the crash', width: 640, height: 480, editor: 'html-editor' });
    expect(created.status).toBe(200);
    const templateId: string = created.body.identifier;
    await crash(first);

    // The state a crash right after an append leaves: the event is in the log, the read model has not seen it.
    eventStore = await createPostgresEventStore({ connectionString: databaseUrl });
    const [createdEvent] = await eventStore.readStream(templateStream(templateId));
    expect(createdEvent?.type).toBe('TemplateCreated');
    const orgId = createdEvent?.metadata.orgId ?? '';
    // What the service itself does for a PATCH: read, decide, append with the expected revision and a full envelope.
    const appended = await onTemplateStream(
      { eventStore, clock: systemClock, ids: uuidV7Ids },
      templateId,
      { type: 'UpdateTemplate', data: { templateId, orgId, changes: { name: 'After the crash' }, now: systemClock.now().toISOString() } },
      { caller: { orgId, actor: createdEvent?.metadata.actor ?? 'system', scopes: ['templates'] }, correlationId: randomUUID() },
    );
    expect(appended.events.map((event) => event.type)).toEqual(['TemplateUpdated']);
    const [, updatedEvent] = await eventStore.readStream(templateStream(templateId));
    expect(updatedEvent?.metadata).toMatchObject({ orgId, schemaVersion: 1, eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), causationId: expect.any(String) });
    const stale = await sql.query<{ name: string }>('select name from templates where id = $1', [templateId]);
    expect(stale.rows).toEqual([{ name: 'Before the crash' }]);
    const behind = await sql.query<{ name: string; position: string }>('select name, position from projection_checkpoints');
    expect(behind.rows.length).toBeGreaterThan(0);
    for (const checkpoint of behind.rows) expect(Number(checkpoint.position), checkpoint.name).toBeLessThan(appended.position ?? 0);

    const second = await startService();
    // Healthy means caught up: the very first read after /healthz sees the event.
    const read = await call(second, 'GET', `/api/v2/my-templates/${templateId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ identifier: templateId, name: 'After the crash', width: 640, height: 480 });
    const listed = await listAll(second);
    expect(listed.filter((template) => template.identifier === templateId)).toEqual([expect.objectContaining({ name: 'After the crash' })]);
    const byName = await call(second, 'GET', `/api/v2/my-templates?name=${encodeURIComponent('After the crash')}`);
    expect(byName.body.map((template: { identifier: string }) => template.identifier)).toEqual([templateId]);
    const caughtUp = await sql.query<{ name: string; position: string }>('select name, position from projection_checkpoints');
    for (const checkpoint of caughtUp.rows) expect(Number(checkpoint.position), checkpoint.name).toBeGreaterThanOrEqual(appended.position ?? Infinity);
    await crash(second);
  });

  it('loses no acknowledged write when killed in the middle of a burst of POSTs', { timeout: 180_000 }, async () => {
    const service = await startService();
    const before = new Set((await listAll(service)).map((template) => template.identifier));

    const acknowledged: string[] = [];
    const failedBeforeKill: string[] = [];
    const failedByKill: string[] = [];
    const limit = 400;
    let killed = false;
    let sent = 0;
    const burstId = randomUUID().slice(0, 8);
    const crashed = (async () => {
      // Kill once a few writes went through, while others are in flight.
      while (acknowledged.length < 12 && sent < limit) await sleep(5);
      killed = true;
      await crash(service);
    })();
    const worker = async () => {
      while (sent < limit) {
        const index = sent++;
        try {
          const response = await call(service, 'POST', '/api/v2/my-templates', { name: `Burst ${burstId} ${index}`, width: 100, height: 100, editor: 'html-editor', tags: ['burst'] });
          if (response.status !== 200) throw new Error(`status ${response.status}: ${JSON.stringify(response.body)}`);
          acknowledged.push(response.body.identifier);
        } catch (error) {
          // Refused or cut off by the kill: not acknowledged, so the client may not count on it.
          (killed ? failedByKill : failedBeforeKill).push((error as Error).message);
          return;
        }
      }
    };
    await Promise.all([crashed, ...Array.from({ length: 6 }, worker)]);
    expect(failedBeforeKill).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(12);
    // The kill really cut the burst: every worker's next request failed.
    expect(failedByKill.length).toBeGreaterThan(0);
    expect(sent).toBeLessThan(limit);

    const restarted = await startService();
    const listed = await listAll(restarted);
    const counts = countBy(listed.map((template) => template.identifier));
    const missing = acknowledged.filter((id) => counts.get(id) !== 1);
    expect(missing, 'acknowledged templates missing (or listed twice) after restart').toEqual([]);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    for (const id of acknowledged) {
      const read = await call(restarted, 'GET', `/api/v2/my-templates/${id}`);
      expect(read.status).toBe(200);
    }

    // Whatever was appended but never acknowledged is projected too: read model and log agree.
    const createdInLog = await sql.query<{ id: string }>(
      "select data->>'templateId' as id from events where type = 'TemplateCreated' and data->>'name' like $1",
      [`Burst ${burstId} %`],
    );
    const burstListed = listed.filter((template) => template.name.startsWith(`Burst ${burstId} `)).map((template) => template.identifier);
    expect(new Set(burstListed)).toEqual(new Set(createdInLog.rows.map((row) => row.id)));
    expect(burstListed.every((id) => !before.has(id))).toBe(true);
    await crash(restarted);
  });

  it('completes a synchronous render killed while its workflow waits for the render begun ahead, charging it once', { timeout: 240_000 }, async () => {
    const first = await startService();
    const created = await call(first, 'POST', '/api/v2/my-templates', { name: 'Killed mid-render', width: 320, height: 200, editor: 'html-editor' });
    expect(created.status).toBe(200);
    const templateId: string = created.body.identifier;
    // The render begun ahead waits 5 s in its page: long enough for the kill to land inside it.
    const answer = call(first, 'POST', '/api/v2/render', { template: templateId, waitTime: 5000, cache: false }).then(
      (response) => `answered ${response.status}`,
      () => 'cut off',
    );
    const eventsOf = async (requestId: string, type: string) =>
      Number((await sql.query<{ n: string }>("select count(*) as n from events where type = $1 and data->>'requestId' = $2", [type, requestId])).rows[0]?.n);
    // Charged: the workflow has started and its produce step waits for the render begun ahead.
    const requestId = await waitFor('the render to be charged', async () => {
      const { rows } = await sql.query<{ id: string }>(
        `select requested.data->>'requestId' as id from events requested
          join events charged on charged.type = 'CreditsCharged' and charged.data->>'requestId' = requested.data->>'requestId'
          where requested.type = 'RenderRequested' and requested.data->'spec'->>'templateId' = $1`,
        [templateId],
      );
      return rows[0]?.id;
    });
    await crash(first);
    expect(await answer).toBe('cut off');
    expect(await eventsOf(requestId, 'RenderCompleted')).toBe(0);

    // The workflow's task, lost with the process, runs again on the new worker: charged once, rendered afresh, recorded.
    const second = await startService();
    const result = await waitFor(
      'the killed render to complete',
      async () => {
        const read = await call(second, 'GET', `/api/v2/results/${requestId}`);
        return read.status === 200 && read.body.status !== 'pending' ? read.body : undefined;
      },
      120_000,
    );
    expect(result).toMatchObject({ identifier: requestId, status: 'done' });
    const file = await fetch(result.href);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(await eventsOf(requestId, 'CreditsCharged')).toBe(1);
    expect(await eventsOf(requestId, 'CreditsRefunded')).toBe(0);
    expect(await eventsOf(requestId, 'RenderCompleted')).toBe(1);
    await crash(second);
  });
});
