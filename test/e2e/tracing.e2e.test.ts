import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { callApi } from '../support/http-call.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startServiceProcess, stopServiceProcesses, type ServiceProcess } from '../support/service-process.js';
import { waitFor } from '../support/wait-for.js';
import { startWorkerProcess, stopWorkerProcesses } from '../support/worker-process.js';

/**
 * Tracing on (an OTLP endpoint configured) across `npm run api` and `npm run worker`: one trace
 * runs from the HTTP request through the workflow it starts to the activities a worker runs.
 */
let receiver: OtlpReceiver;
let api: ServiceProcess;
let dataDir: string;
const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;

const call = (method: string, pathname: string, body?: unknown) => callApi(api.url, apiKey, method, pathname, body);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-tracing-'));
  const shared = {
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: dataDir,
    EVENTSTORE_URL: '',
    TEMPORAL_ADDRESS: inject('temporalAddress') ?? '',
    TEMPORAL_TASK_QUEUE: `tracing-${randomBytes(6).toString('hex')}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // Batches leave every 100 ms rather than every 5 s, so the test sees them soon.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  api = await startServiceProcess('api', { ...shared, BOOTSTRAP_API_KEY: apiKey, LOG_LEVEL: 'info' });
  await startWorkerProcess(shared);
});
afterAll(async () => {
  await stopWorkerProcesses();
  await stopServiceProcesses();
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const spansOf = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);

/** The chain of parents from a span up to the root of what the receiver holds. */
const ancestryOf = (span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] => {
  const chain: ReceivedSpan[] = [];
  for (let parent = trace.find((each) => each.spanId === span.parentSpanId); parent; parent = trace.find((each) => each.spanId === parent?.parentSpanId)) {
    chain.push(parent);
  }
  return chain;
};

/** Waits until the trace holds a span matching `name` run by a process of `role`. */
const waitForSpan = (traceId: string, name: RegExp, role: string) =>
  waitFor(`a ${name} span from the ${role} process in trace ${traceId}`, () => spansOf(traceId).find((span) => name.test(span.name) && span.resource['render_service.role'] === role), 60_000);

describe('OpenTelemetry tracing', () => {
  it("continues the caller's trace from the HTTP request through the workflow to the worker's activities", async () => {
    const template = (await call('POST', '/api/v2/my-templates', { name: 'Traced', width: 200, height: 100, editor: 'html-editor' })).body.identifier as string;
    await call('PUT', `/api/v2/my-templates/${template}/html-editor`, { html: '<p style="background:#0a0">traced</p>' });

    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const response = await fetch(`${api.url}/api/v2/render`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ template, outputFormat: 'png' }),
    });
    expect(response.status).toBe(200);

    const request = await waitForSpan(traceId, /^POST \/api\/v2\/render$/, 'api');
    expect(request.parentSpanId).toBe(callerSpanId);
    expect(request.attributes).toMatchObject({ 'http.route': '/api/v2/render', 'http.response.status_code': 200 });
    const start = await waitForSpan(traceId, /^StartWorkflow:/, 'api');
    expect(start.parentSpanId).toBe(request.spanId);

    const run = await waitForSpan(traceId, /^RunWorkflow:/, 'worker');
    const activity = await waitForSpan(traceId, /^RunActivity:/, 'worker');
    const trace = spansOf(traceId);
    expect(ancestryOf(run, trace).map((span) => span.spanId)).toContain(request.spanId);
    // The activity's parents lead through the workflow back to the request that asked for it.
    const activityParents = ancestryOf(activity, trace).map((span) => span.name);
    expect(activityParents).toEqual(expect.arrayContaining([expect.stringMatching(/^StartActivity:/), expect.stringMatching(/^RunWorkflow:/), 'POST /api/v2/render']));

    // The API's log line for the request names the same trace.
    await waitFor('the request log line with its trace id', () => (api.output().includes(`"trace_id":"${traceId}"`) ? true : undefined));
  });

  it("traces a video past its 202 response: the video queue's activity runs in the request's trace", async () => {
    const created = await call('POST', '/api/v2/my-templates', { name: 'Traced video', width: 160, height: 90, editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 1000, fps: 25 });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const template = created.body.identifier as string;
    await call('PUT', `/api/v2/my-templates/${template}/components`, {
      background: '#000000',
      components: [{ id: 'box', type: 'RECTANGLE', x: 0, y: 25, width: 40, height: 40, fill: '#ff0000', animation: { keyframes: [{ offset: 0, duration: 1000, to: { x: 120 } }] } }],
    });
    const accepted = await call('POST', '/api/v2/render', { template, outputFormat: 'mp4' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);

    const request = await waitFor('the 202 request span', () =>
      receiver.spans.find((span) => span.name === 'POST /api/v2/render' && span.attributes['http.response.status_code'] === 202),
    );
    const videoActivity = await waitForSpan(request.traceId, /^RunActivity:produceVideo$/, 'worker');
    // A span is exported when it ends: the workflow's own span only once the video is joined, stored
    // and recorded, after the activity's. Until then the chain the receiver holds has a gap.
    const linked = () => ancestryOf(videoActivity, spansOf(request.traceId)).map((span) => span.spanId);
    await waitFor('the video activity linked back to the 202 request', () => (linked().includes(request.spanId) ? true : undefined), 60_000);
    expect(linked()).toContain(request.spanId);
  });
});
