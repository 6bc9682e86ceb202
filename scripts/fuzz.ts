import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { loadConfig } from '../infrastructure/config/config.js';
import { createLogger } from '../infrastructure/config/logger.js';
import { createRuntime } from '../interfaces/composition-root.js';
import { createHttpApp } from '../interfaces/rest/app.js';
import { listen } from '../interfaces/rest/http-server.js';
import { createApiProbe, RENDERING_OFF_MESSAGE } from '../test/support/api-probe.js';
import { operationsOf, requestArbitrary, type OpenApiDocument } from '../test/support/openapi-arbitraries.js';

/*
 * npm run fuzz: the longer run of test/e2e/api-properties.e2e.test.ts. Starts the whole service
 * (API, projections, and a render worker on an embedded Temporal and Chromium unless
 * FUZZ_RENDERING=off) on a fresh embedded PostgreSQL in a folder of its own,
 * sends FUZZ_REQUESTS (20,000 by default) generated requests spread over every operation of the
 * OpenAPI document it serves, prints the answers per operation and status, and exits non-zero when
 * any answer was a 5xx, a 4xx outside the error shape, or a refusal that changed the event log.
 */

const requests = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const logLevel = process.env.LOG_LEVEL ?? 'silent';
// Renders really run by default, so accepted requests are answered by the renderer, not refused.
const rendering = process.env.FUZZ_RENDERING === 'off' ? 'off' : 'worker';

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'render-service-fuzz-'));
// The embedded server may run as user postgres, which must be able to enter this folder.
await chmod(dataDir, 0o755);
const apiKey = `rk_fuzz_${randomBytes(16).toString('hex')}`;
const config = loadConfig({
  DATA_DIR: dataDir,
  DATABASE_URL: process.env.FUZZ_DATABASE_URL ?? '',
  EVENTSTORE_URL: '',
  PORT: '0',
  HOST: '127.0.0.1',
  BOOTSTRAP_API_KEY: apiKey,
  LOG_LEVEL: logLevel,
  // Credits never run out, so valid renders keep reaching as far as a process without rendering goes.
  DEFAULT_PLAN_CREDITS: '100000000',
  // Twenty thousand requests from one key in minutes: limits would answer most of them with 429.
  RATE_LIMIT_DEFAULT: '0',
});
const logger = createLogger(logLevel);
const runtime = await createRuntime(config, logger, { runProjections: true, rendering });
const failures: string[] = [];
try {
  await runtime.services.accounts.ensureBootstrapKey(apiKey);
  const otherOrganization = await runtime.services.accounts.openOrganization({ name: 'fuzz other' });
  const otherKey = (await runtime.services.accounts.issueApiKey(otherOrganization, { label: 'fuzz' })).key;
  const server = await listen(createHttpApp({ services: runtime.services, logger, bodyLimit: config.BODY_LIMIT }), 0, '127.0.0.1');
  try {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const operations = operationsOf(document);
    const probe = await createApiProbe({
      url: server.url,
      keys: { valid: apiKey, otherOrganization: otherKey },
      // With rendering on, workflows append on their own (and a render the renderer refuses is
      // recorded as failed, then answered 400), so the log is not quiet enough to tie a move to one request.
      ...(rendering === 'off' ? { headPosition: () => runtime.eventStore.headPosition() } : {}),
    });
    console.log(`fuzz: ${requests} requests over ${operations.length} operations, seed ${seed} (FUZZ_SEED replays it)`);
    console.log(
      rendering === 'off'
        ? `rendering: off; a render the service accepted answers 503 "${RENDERING_OFF_MESSAGE}", counted as "503 rendering off" and not as a failure`
        : 'rendering: on (Temporal, Chromium): accepted renders and captures run; refusals are checked for shape, not for log changes (workflows append meanwhile)',
    );

    const counts = new Map<string, Map<string, number>>();
    const started = Date.now();
    let sent = 0;
    for (const [index, operation] of operations.entries()) {
      const runs = Math.ceil((requests - sent) / (operations.length - index));
      const perStatus = new Map<string, number>();
      counts.set(operation.name, perStatus);
      // Problems are collected rather than thrown, so one failure does not cut the run short.
      await fc.assert(
        fc.asyncProperty(requestArbitrary(document, operation), async (plan) => {
          const answer = await probe.send(plan, operation.path, operation.keyInQuery);
          perStatus.set(answer.label, (perStatus.get(answer.label) ?? 0) + 1);
          if (answer.problem) failures.push(`${operation.name}: ${answer.problem}\n    request: ${answer.request}\n    plan: ${fc.stringify(plan).slice(0, 1000)}`);
        }),
        { numRuns: runs, seed: seed + index },
      );
      sent += runs;
      const shown = [...perStatus].sort(([a], [b]) => a.localeCompare(b)).map(([label, count]) => `${label}: ${count}`);
      console.log(`${operation.name.padEnd(52)} ${String(runs).padStart(5)}  ${shown.join(', ')}`);
    }
    probe.close();

    const totals = new Map<string, number>();
    for (const perStatus of counts.values()) for (const [label, count] of perStatus) totals.set(label, (totals.get(label) ?? 0) + count);
    const fiveHundreds = [...totals].filter(([label]) => label.startsWith('5') && label !== '503 rendering off').reduce((sum, [, count]) => sum + count, 0);
    console.log(`\nrequests sent: ${sent} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`per status: ${[...totals].sort(([a], [b]) => a.localeCompare(b)).map(([label, count]) => `${label}: ${count}`).join(', ')}`);
    console.log(`5xx (other than "503 rendering off"): ${fiveHundreds}`);
    console.log(`problems (5xx, 4xx outside the error shape, refusals that changed the log): ${failures.length}`);
    for (const failure of failures.slice(0, 20)) console.log(`  ${failure}`);
  } finally {
    await server.close(1_000);
  }
} finally {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(failures.length > 0 ? 1 : 0);
