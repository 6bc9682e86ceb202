import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * A process that runs the workers shares its Temporal connection with its client, so a workflow it
 * starts gets its first task in the start's answer (composition-root, connectTemporal's `workers`):
 * no trip through the server's matching. The server writes down that it did. Its workflows run on its
 * main thread, with no hook on their promises (temporal-worker.ts, workflowSandboxOptions).
 */
let app: TestApp;
let temporal: Connection;

beforeAll(async () => {
  app = await startTestApp({ rendering: 'worker' });
  temporal = await Connection.connect({ address: inject('temporalAddress') ?? '' });
});
afterAll(async () => {
  await temporal?.close();
  await app?.close();
});

/** The SDK's sandbox hooks of this thread: installed by the first workflow that runs on it. */
const sandboxHooks = () =>
  (createRequire(import.meta.url)('@temporalio/worker/lib/workflow/vm-shared.js') as { globalHandlers: { installed: boolean; promiseHookInstalled: boolean } })
    .globalHandlers;

const renderOnce = async (title: string) => {
  const created = await app.call('POST', '/api/v2/my-templates', { body: { name: 'Eager', width: 200, height: 100, editor: 'html-editor' } });
  await app.call('PUT', `/api/v2/my-templates/${created.body.identifier}/html-editor`, { body: { html: '<h1>{{title}}</h1>' } });
  return app.call('POST', '/api/v2/render', { body: { template: created.body.identifier, data: { title }, cache: false } });
};

const startedAttributes = async (workflowId: string) => {
  const history = await new Client({ connection: temporal }).workflow.getHandle(workflowId).fetchHistory();
  return history.events?.[0]?.workflowExecutionStartedEventAttributes;
};

describe('a render started where the worker runs', () => {
  it('is started eagerly: its first workflow task comes with the start, to this process, and the render is answered', async () => {
    const rendered = await renderOnce('Hi');
    expect(rendered.status).toBe(200);
    expect(rendered.body.href).toEqual(expect.any(String));
    const started = await startedAttributes(rendered.body.requestId);
    expect(started?.workflowType?.name).toBe('syncRenderWorkflow');
    expect(started?.eagerExecutionAccepted).toBe(true);
  });

  it("runs its workflow on this process's main thread, with no hook on the promises it makes", async () => {
    const rendered = await renderOnce('Here');
    expect(rendered.status).toBe(200);
    // A worker thread would have installed the hooks in its own copy of the SDK, not in this one.
    expect(sandboxHooks().installed).toBe(true);
    expect(sandboxHooks().promiseHookInstalled).toBe(false);
  });
});
