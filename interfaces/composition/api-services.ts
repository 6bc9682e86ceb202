import { createAccountService } from '../../application/accounts/account-service.js';
import { createUsageService } from '../../application/accounts/usage-service.js';
import { uploadFilePath } from '../../application/assets/asset-locations.js';
import { createAuditService } from '../../application/audit/audit-service.js';
import { createBatchService } from '../../application/batches/batch-service.js';
import { createCaptureService } from '../../application/captures/capture-service.js';
import { createFontService } from '../../application/fonts/font-service.js';
import type { RenderOrchestrator } from '../../application/ports/render-orchestrator.js';
import { createRenderService } from '../../application/renders/render-service.js';
import { createRequestListService } from '../../application/results/list-v1-requests/request-list-service.js';
import { createResultService } from '../../application/results/result-service.js';
import { createSettingsService } from '../../application/settings/settings-service.js';
import { createTemplateService } from '../../application/templates/template-service.js';
import { createUploadService } from '../../application/uploads/upload-service.js';
import { createUrlSigningService } from '../../application/url-signing/url-signing-service.js';
import { createEventIntegrity } from '../../infrastructure/audit/event-integrity.js';
import { createLedgerReadModel } from '../../infrastructure/audit/ledger-read-model.js';
import { csvReader } from '../../infrastructure/batches/csv-reader.js';
import { streamedZipWriter } from '../../infrastructure/batches/zip-writer.js';
import type { Config } from '../../infrastructure/config/config.js';
import { createFontconfigCatalog } from '../../infrastructure/fonts/font-catalog.js';
import { isolatedFontInspector, isolatedImageInspector } from '../../infrastructure/parsing/isolated-inspectors.js';
import { createParsingPool, SERVICE_PARSING_LIMITS } from '../../infrastructure/parsing/parsing-pool.js';
import { sha256ApiKeyCodec } from '../../infrastructure/security/api-key-codec.js';
import { randomUrlSigningSecrets } from '../../infrastructure/security/random-url-signing-secrets.js';
import { healthCheck } from '../../infrastructure/system/health-checks.js';
import type { Lifetime } from '../../infrastructure/system/lifetime.js';
import { mustacheMergeFields } from '../../infrastructure/templates/mustache-merge-fields.js';
import { randomWebhookSecrets } from '../../infrastructure/webhooks/random-webhook-secrets.js';
import type { AppServices, Operations } from '../http/app-services.js';
import type { Foundation } from './foundation.js';
import type { RenderWorker } from './render-worker.js';

/**
 * The use cases REST and tRPC call, each built from the foundation and what it alone needs;
 * `worker` is this process's own render worker, when it runs one.
 */
export const createApiServices = (foundation: Foundation, orchestrator: RenderOrchestrator, config: Config, operations: Operations, lifetime: Lifetime, worker: RenderWorker | null): AppServices => {
  const parsing = createParsingPool(SERVICE_PARSING_LIMITS);
  lifetime.defer(() => parsing.close());
  const deps = { ...foundation, orchestrator, syncTimeoutMs: config.SYNC_RENDER_TIMEOUT_MS };
  const defaultPlan = { name: config.DEFAULT_PLAN_NAME, credits: config.DEFAULT_PLAN_CREDITS, uploadsBytes: config.DEFAULT_UPLOADS_BYTES };
  return {
    accounts: createAccountService({ ...deps, apiKeys: sha256ApiKeyCodec, defaultPlan, webhookSecretGenerator: randomWebhookSecrets }),
    templates: createTemplateService({ ...deps, mergeFields: mustacheMergeFields }),
    results: createResultService(deps),
    usage: createUsageService(deps),
    fonts: createFontService({ ...deps, catalog: createFontconfigCatalog(), fontInspector: isolatedFontInspector(parsing) }),
    uploads: createUploadService({ ...deps, imageInspector: isolatedImageInspector(parsing), hrefOf: (uploadId) => `${foundation.publicBaseUrl}${uploadFilePath(uploadId)}` }),
    // A render that hits the cache is answered from rows this process keeps in memory.
    renders: createRenderService({ ...deps, results: foundation.cachedResults, maxPendingSyncRenders: config.MAX_PENDING_SYNC_RENDERS, ...(worker ?? {}) }),
    captures: createCaptureService({ ...deps, maxPendingSyncCaptures: config.MAX_PENDING_SYNC_RENDERS }),
    requests: createRequestListService(deps),
    batches: createBatchService({ ...deps, csv: csvReader, zipWriter: streamedZipWriter }),
    urlSigning: createUrlSigningService({ ...deps, generator: randomUrlSigningSecrets }),
    settings: createSettingsService(deps),
    audit: createAuditService({ eventStore: foundation.eventStore, integrity: createEventIntegrity(), ledger: createLedgerReadModel(foundation.databaseUrl) }),
    rateLimits: { windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000, store: foundation.rateLimitStore, limitFor: foundation.planLimit, signedViewsPerClient: config.SIGNED_IMAGE_RATE_LIMIT },
    health: healthCheck(foundation),
    operations,
  };
};
