import { randomBytes } from 'node:crypto';
import { MemoryStore } from 'express-rate-limit';
import { createAccountService } from '../../application/accounts/account-service.js';
import { createUsageService } from '../../application/accounts/usage-service.js';
import { createRequestListService } from '../../application/results/list-v1-requests/request-list-service.js';
import { createResultService } from '../../application/results/result-service.js';
import { createSettingsService } from '../../application/settings/settings-service.js';
import { createTemplateService } from '../../application/templates/template-service.js';
import { createUrlSigningService } from '../../application/url-signing/url-signing-service.js';
import { DomainError } from '../../domain/shared/errors.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { sha256ApiKeyCodec } from '../../infrastructure/security/api-key-codec.js';
import { mustacheMergeFields } from '../../infrastructure/templates/mustache-merge-fields.js';
import { randomUrlSigningSecrets } from '../../infrastructure/security/random-url-signing-secrets.js';
import { randomWebhookSecrets } from '../../infrastructure/webhooks/random-webhook-secrets.js';
import type { AppServices } from '../../interfaces/http/app-services.js';
import { createHttpApp } from '../../interfaces/rest/app.js';
import { listen } from '../../interfaces/rest/http-server.js';
import { createWorld } from './application-world.js';
import type { ApiSpecTarget } from './api-spec.js';
import { apiCaller } from './http-call.js';

/**
 * A use case the in-memory world does not compose (uploads, fonts, batches, audit and captures need
 * parsers, files or the real log): asked anyway, it answers 503 in the spec's shape,
 * so a test that strays there fails saying so.
 */
const notComposed = <Service extends object>(name: string): Service =>
  new Proxy({} as Service, {
    get: (_target, operation) => () => Promise.reject(new DomainError('unavailable', `${name}.${String(operation)} is not composed in the in-memory world`)),
  });

export interface InMemoryApp extends ApiSpecTarget {
  readonly world: ReturnType<typeof createWorld>;
  /** Where it listens, on a free loopback port. */
  readonly url: string;
  /** A key of the bootstrap organization. */
  readonly apiKey: string;
  /** The use cases the edges call, for what a test sets up without HTTP. */
  readonly services: AppServices;
  close(): Promise<void>;
}

/**
 * The REST and tRPC edges (the same express app `npm start` serves) over the application world:
 * the in-memory event store and read models, the fake clock, storage and orchestrator that runs the
 * workflow's steps at once on a fake browser. No PostgreSQL, Temporal or Chromium: API specs run
 * here in milliseconds, and the e2e tier keeps what only the real stack shows.
 */
export const startInMemoryApp = async (): Promise<InMemoryApp> => {
  const world = createWorld();
  const { commandDeps, readModels, links, storage, eventStore, sealer } = world;
  const progress = readModels.progress;
  const accounts = createAccountService({
    ...commandDeps,
    accounts: readModels.accounts,
    progress,
    apiKeys: sha256ApiKeyCodec,
    defaultPlan: { name: 'test', credits: 50, uploadsBytes: 10_000_000 },
    webhookSecretGenerator: randomWebhookSecrets,
    secretSealer: sealer,
  });
  const ready = async () => ({ ok: true, checks: {} });
  const services: AppServices = {
    accounts,
    templates: createTemplateService({ ...commandDeps, templates: readModels.templates, progress, mergeFields: mustacheMergeFields }),
    results: createResultService({ ...commandDeps, results: readModels.results, progress, storage, links }),
    usage: createUsageService({ accounts: readModels.accounts, clock: commandDeps.clock }),
    renders: world.renderService(),
    requests: createRequestListService({ results: readModels.results, links, eventStore }),
    settings: createSettingsService({ ...commandDeps, accounts: readModels.accounts, progress }),
    fonts: notComposed('fonts'),
    uploads: notComposed('uploads'),
    captures: notComposed('captures'),
    audit: notComposed('audit'),
    urlSigning: createUrlSigningService({
      ...commandDeps,
      signingKeys: readModels.signingKeys,
      templates: readModels.templates,
      progress,
      generator: randomUrlSigningSecrets,
      secretSealer: sealer,
      publicBaseUrl: 'http://in-memory.test',
    }),
    batches: notComposed('batches'),
    rateLimits: { windowMs: 60_000, store: new MemoryStore(), limitFor: async () => 0, signedViewsPerClient: 0 },
    health: ready,
    operations: { recordHttpRequest: () => {}, scrapeMetrics: async () => ({ contentType: 'text/plain', body: '' }), readiness: ready },
  };
  const apiKey = `rk_test_${randomBytes(16).toString('hex')}`;
  await accounts.ensureBootstrapKey(apiKey);
  const server = await listen(createHttpApp({ services, logger: createLogger('silent'), bodyLimit: '2mb' }), 0, '127.0.0.1');

  return {
    world,
    url: server.url,
    apiKey,
    services,
    eventStore,
    waitFor: (position) => progress.waitFor(position),
    call: apiCaller(server.url, apiKey),
    async newOrganizationKey() {
      const orgId = await accounts.openOrganization({ name: 'other' });
      return (await accounts.issueApiKey(orgId, { label: 'test' })).key;
    },
    close: () => server.close(1000),
  };
};
