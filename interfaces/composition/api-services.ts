import { createBatchService } from '../../application/batches/batch-service.js';
import { createAccountService } from '../../application/accounts/account-service.js';
import { createUsageService } from '../../application/accounts/usage-service.js';
import { createAuditService } from '../../application/audit/audit-service.js';
import { uploadFilePath } from '../../application/assets/asset-locations.js';
import { createCaptureService } from '../../application/captures/capture-service.js';
import { createFontService } from '../../application/fonts/font-service.js';
import { createUploadService } from '../../application/uploads/upload-service.js';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { createRenderService } from '../../application/renders/render-service.js';
import { createRequestListService } from '../../application/results/list-v1-requests/request-list-service.js';
import { createResultService } from '../../application/results/result-service.js';
import { createTemplateService } from '../../application/templates/template-service.js';
import { createSettingsService } from '../../application/settings/settings-service.js';
import { createUrlSigningService } from '../../application/url-signing/url-signing-service.js';
import { csvReader } from '../../infrastructure/batches/csv-reader.js';
import { streamedZipWriter } from '../../infrastructure/batches/zip-writer.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import type { Config } from '../../infrastructure/config/config.js';
import { createFontconfigCatalog } from '../../infrastructure/fonts/font-catalog.js';
import { isolatedFontInspector, isolatedImageInspector } from '../../infrastructure/parsing/isolated-inspectors.js';
import { createParsingPool, SERVICE_PARSING_LIMITS } from '../../infrastructure/parsing/parsing-pool.js';
import { sha256ApiKeyCodec } from '../../infrastructure/security/api-key-codec.js';
import { systemClock } from '../../infrastructure/system/clock-and-ids.js';
import { mustacheMergeFields } from '../../infrastructure/templates/mustache-merge-fields.js';
import { randomWebhookSecrets } from '../../infrastructure/webhooks/random-webhook-secrets.js';
import { randomUrlSigningSecrets } from '../../infrastructure/security/random-url-signing-secrets.js';
import type { AppServices, Operations } from '../http/app-services.js';
import type { Foundation } from './foundation.js';
import type { Lifetime } from '../../infrastructure/system/lifetime.js';
import type { RenderWorker } from './render-worker.js';
import { healthCheck } from '../../infrastructure/system/health-checks.js';

/**
 * The use cases REST and tRPC call, on the foundation and on whatever runs renders (Temporal, or
 * nothing); `worker` is this process's own render worker, when it runs one.
 */
export const createApiServices = (
  foundation: Foundation,
  orchestrator: RenderOrchestrator,
  config: Config,
  operations: Operations,
  lifetime: Lifetime,
  worker: Pick<RenderWorker, 'renderAhead'> | null = null,
): AppServices => {
  const { commandDeps, readModels, projections, links, storage, eventStore, hostPolicy } = foundation;
  const parsing = createParsingPool(SERVICE_PARSING_LIMITS);
  lifetime.defer(() => parsing.close());
  const assetDeps = { ...commandDeps, accounts: readModels.accounts, storage, progress: projections, assets: readModels.assets };
  const renderLimits = { syncTimeoutMs: config.SYNC_RENDER_TIMEOUT_MS, urls: hostPolicy, links, progress: projections, orchestrator };
  return {
    accounts: createAccountService({
      ...commandDeps,
      accounts: readModels.accounts,
      progress: projections,
      apiKeys: sha256ApiKeyCodec,
      defaultPlan: { name: config.DEFAULT_PLAN_NAME, credits: config.DEFAULT_PLAN_CREDITS, uploadsBytes: config.DEFAULT_UPLOADS_BYTES },
      webhookSecretGenerator: randomWebhookSecrets,
      secretSealer: foundation.secretSealer,
    }),
    templates: createTemplateService({ ...commandDeps, templates: readModels.templates, progress: projections, mergeFields: mustacheMergeFields }),
    results: createResultService({ ...commandDeps, results: readModels.results, progress: projections, storage, links }),
    usage: createUsageService({ accounts: readModels.accounts, clock: systemClock }),
    fonts: createFontService({ ...assetDeps, catalog: createFontconfigCatalog(), fontInspector: isolatedFontInspector(parsing) }),
    uploads: createUploadService({ ...assetDeps, imageInspector: isolatedImageInspector(parsing), hrefOf: (uploadId) => `${foundation.publicBaseUrl}${uploadFilePath(uploadId)}` }),
    renders: createRenderService({
      ...commandDeps,
      ...renderLimits,
      templates: readModels.templates,
      results: readModels.cachedResults,
      accounts: readModels.accounts,
      storage,
      maxPendingSyncRenders: config.MAX_PENDING_SYNC_RENDERS,
      ...(worker ? { renderAhead: worker.renderAhead } : {}),
    }),
    captures: createCaptureService({ ...commandDeps, ...renderLimits, accounts: readModels.accounts, maxPendingSyncCaptures: config.MAX_PENDING_SYNC_RENDERS }),
    requests: createRequestListService({ results: readModels.results, links, eventStore }),
    batches: createBatchService({
      ...commandDeps,
      templates: readModels.templates,
      accounts: readModels.accounts,
      batches: readModels.batches,
      storage,
      orchestrator,
      csv: csvReader,
      urls: hostPolicy,
      progress: projections,
      publicBaseUrl: foundation.publicBaseUrl,
      zipWriter: streamedZipWriter,
    }),
    urlSigning: createUrlSigningService({
      ...commandDeps,
      signingKeys: readModels.signingKeys,
      templates: readModels.templates,
      progress: projections,
      generator: randomUrlSigningSecrets,
      sealer: foundation.secretSealer,
      publicBaseUrl: foundation.publicBaseUrl,
    }),
    settings: createSettingsService({ ...commandDeps, accounts: readModels.accounts, progress: projections }),
    audit: createAuditService({ eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(foundation.databaseUrl) }),
    rateLimits: {
      windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
      store: foundation.rateLimitStore,
      limitFor: foundation.planLimit,
      signedViewsPerClient: config.SIGNED_IMAGE_RATE_LIMIT,
    },
    health: healthCheck(foundation),
    operations,
  };
};
