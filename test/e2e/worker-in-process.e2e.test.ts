import { createRequire } from 'node:module';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * A process that runs the workers shares its Temporal connection with its client, so a workflow it
 * starts gets its first task in the start's answer (composition-root, connectTemporal's `workers`):
 * no trip through the server's matching. The server writes down that it did. Its workflows run on its
 * main thread, with no hook on their promises (temporal-worker.ts, workflowSandboxOptions), and the
 * render of a client that waits begins before its workflow does.
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

/** A counter of this process's /metrics, summed over the series whose labels include `labels`. */
const counter = async (name: string, labels: string) => {
  const { body } = await app.runtime.services.operations.scrapeMetrics();
  return body
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
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

  it('is rendered once: the render begun as the request was recorded is the one its workflow stores (renders-ahead.ts)', async () => {
    const taken = await counter('render_service_renders_ahead_total', 'outcome="taken"');
    const rendered = await counter('render_service_renders_total', 'kind="image"');

    const answer = await renderOnce('Ahead');
    expect(answer.status).toBe(200);

    expect(await counter('render_service_renders_ahead_total', 'outcome="taken"')).toBe(taken + 1);
    expect(await counter('render_service_renders_total', 'kind="image"')).toBe(rendered + 1);
    expect(await counter('render_service_renders_ahead_total', 'outcome="unused"')).toBe(0);
    const { pathname, search } = new URL(answer.body.href);
    const file = await fetch(`${app.url}${pathname}${search}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
  });

  it("runs its workflow on this process's main thread, with no hook on the promises it makes", async () => {
    const rendered = await renderOnce('Here');
    expect(rendered.status).toBe(200);
    // A worker thread would have installed the hooks in its own copy of the SDK, not in this one.
    expect(sandboxHooks().installed).toBe(true);
    expect(sandboxHooks().promiseHookInstalled).toBe(false);
  });
});
