import type { Store } from 'express-rate-limit';
import type { AccountService } from '../../application/accounts/account-service.js';
import type { BatchService } from '../../application/batches/batch-service.js';
import type { AuditService } from '../../application/audit/audit-service.js';
import type { UsageService } from '../../application/accounts/usage-service.js';
import type { FontService } from '../../application/fonts/font-service.js';
import type { UploadService } from '../../application/uploads/upload-service.js';
import type { ResultService } from '../../application/results/result-service.js';
import type { RenderService } from '../../application/renders/render-service.js';
import type { CaptureService } from '../../application/captures/capture-service.js';
import type { RequestListService } from '../../application/results/list-v1-requests/request-list-service.js';
import type { TemplateService } from '../../application/templates/template-service.js';
import type { SettingsService } from '../../application/settings/settings-service.js';
import type { UrlSigningService } from '../../application/url-signing/url-signing-service.js';
import type { HealthReport } from '../../application/ports/health-report.js';

/** The store's key of an API key's count: its organization first, which names the limit it is held to. */
export const rateLimitKey = (orgId: string, actor: string) => `${orgId}/${actor}`;
export const orgOfRateLimitKey = (key: string) => key.slice(0, key.indexOf('/'));

/** Per-key request limits; the store is shared by every API process. */
export interface RateLimits {
  readonly windowMs: number;
  readonly store: Store;
  /** Requests one key of the organization may make per window (its plan's limit); 0 for no limit. */
  limitFor(orgId: string): Promise<number>;
  /** Signed image URL views one client address may make per window, in this process; 0 for no limit. */
  readonly signedViewsPerClient: number;
}

/** The operations endpoints (/metrics, /readyz) and what feeds them; the composition root owns the registry. */
export interface Operations {
  /** `route` is the matched pattern, never the raw path. */
  recordHttpRequest(labels: { readonly method: string; readonly route: string; readonly status: number }, seconds: number): void;
  /** The Prometheus text exposition of this process. */
  scrapeMetrics(): Promise<{ readonly contentType: string; readonly body: string }>;
  /** Whether this process can serve: what health checks, plus Temporal where it uses it, each bounded in time. */
  readiness(): Promise<HealthReport>;
}

/** What the edges (REST, tRPC) need from the application; the composition root provides it. */
export interface AppServices {
  readonly templates: TemplateService;
  readonly accounts: AccountService;
  readonly results: ResultService;
  readonly usage: UsageService;
  readonly fonts: FontService;
  readonly uploads: UploadService;
  readonly renders: RenderService;
  readonly captures: CaptureService;
  /** The deprecated v1 requests list. */
  readonly requests: RequestListService;
  /** History and past states replayed from the event log (audit scope). */
  readonly audit: AuditService;
  /** URL-signing keys, signed GET /img URLs and their verification. */
  readonly urlSigning: UrlSigningService;
  readonly settings: SettingsService;
  /** Batches of renders from rows of data: submitted, watched, cancelled, collected. */
  readonly batches: BatchService;
  readonly rateLimits: RateLimits;
  health(): Promise<HealthReport>;
  readonly operations: Operations;
}
