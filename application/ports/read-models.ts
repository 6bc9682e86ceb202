import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import type { TextFits } from '../../domain/renders/text-fit.js';
import type { FontFormat, FontStyle, ImageUploadType } from '../../domain/accounts/asset-events.js';
import type { Editor, OutputFormat } from '../../domain/templates/template-settings.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import type { TemplateProperty } from '../../domain/templates/components/template-properties.js';

export interface TemplateView {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly editor: Editor;
  readonly width: number;
  readonly height: number;
  readonly outputFormat: OutputFormat;
  readonly quality: number;
  readonly scaleFactor: number;
  readonly recordDuration: number | null;
  readonly fps: number | null;
  readonly tags: readonly string[];
  readonly createdBy: string;
  readonly sourceTemplateId: string | null;
  readonly preview: string | null;
  readonly html: string | null;
  readonly css: string | null;
  readonly sampleData: Record<string, unknown> | null;
  readonly mergeFields: readonly string[];
  /** canvas-editor and canvas-html templates only; null until components are first written. */
  readonly components: ComponentDocument | null;
  /** Derived from `components`; empty for html-editor templates (their merge fields are their properties). */
  readonly properties: readonly TemplateProperty[];
  /** Stream revision of the version this view shows: a render pins it to reproduce that version. */
  readonly revision: number;
  /** The version this view shows; the latest one in the read model. */
  readonly version: number;
  /** The version renders that name none use; null: the latest. */
  readonly publishedVersion: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface TemplateFilter {
  readonly name?: string;
  /** A template matches when it carries every listed tag. */
  readonly tags?: readonly string[];
  readonly sourceTemplateId?: string;
  /** Zero-based. */
  readonly page: number;
  readonly size: number;
}

export interface TemplateReadModel {
  /** Active templates of the organization only. */
  get(orgId: string, templateId: string): Promise<TemplateView | null>;
  list(orgId: string, filter: TemplateFilter): Promise<TemplateView[]>;
}

export interface ApiKeyView {
  readonly id: string;
  readonly orgId: string;
  readonly hash: string;
  readonly prefix: string;
  readonly label: string;
  readonly scopes: readonly ApiKeyScope[];
  /** A test key (see ApiKeyIssued). */
  readonly test: boolean;
  readonly revoked: boolean;
  readonly createdAt: Date;
}

export interface AccountView {
  readonly orgId: string;
  readonly name: string;
  readonly planName: string;
  readonly planStatus: string;
  readonly creditsTotal: number;
  readonly creditsUsed: number;
  readonly renewalAmount: number;
  readonly nextRenewalAt: string;
  /** Bytes of stored result files and uploaded fonts and images. */
  readonly uploadsUsed: number;
  /** The part of uploadsUsed that uploaded fonts and images take. */
  readonly assetsBytes: number;
  /** Moves with every upload and deletion of a font or image: the render cache keys on it. */
  readonly assetsVersion: number;
  readonly uploadsTotal: number;
  /** Whether GET /img takes the API key from its query string. */
  readonly apiKeyInQuery: boolean;
}

export interface AccountReadModel {
  findKeyByHash(hash: string): Promise<ApiKeyView | null>;
  listKeys(orgId: string): Promise<ApiKeyView[]>;
  getAccount(orgId: string): Promise<AccountView | null>;
  listAccounts(): Promise<AccountView[]>;
}

/** A key that signs GET /img URLs, its secret still sealed. */
export interface UrlSigningKeyView {
  readonly id: string;
  readonly orgId: string;
  readonly sealedSecret: string;
  readonly createdAt: Date;
  /** When the current secret replaced the previous one; null when never rotated. */
  readonly rotatedAt: Date | null;
  /** null while the key signs. */
  readonly revokedAt: Date | null;
}

export interface UrlSigningKeyReadModel {
  /** The organization's keys, revoked ones included, oldest first. */
  list(orgId: string): Promise<UrlSigningKeyView[]>;
  get(orgId: string, keyId: string): Promise<UrlSigningKeyView | null>;
  /**
   * The key a signed URL names, whichever organization's: a URL carries no other credential, and
   * its key is what says whose URL it is.
   */
  lookup(keyId: string): Promise<UrlSigningKeyView | null>;
}

/** Lets a writer wait until the read models reflect its write (read-your-writes). */
export interface ProjectionProgress {
  /** Resolves true once every projection passed `position`, false when `timeoutMs` ran out first. */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
}

export interface ResultView {
  readonly requestId: string;
  readonly orgId: string;
  /** A render of a template, or a capture of a web page. */
  readonly kind: ResultKind;
  /** Empty for captures. */
  readonly templateId: string;
  readonly templateName: string;
  /** The template version rendered; null for captures and for renders made before versions existed. */
  readonly templateVersion: number | null;
  /** The captured page; null for template renders. */
  readonly url: string | null;
  readonly status: 'pending' | 'done' | 'failed';
  readonly format: string;
  readonly width: number | null;
  readonly height: number | null;
  /** Epoch seconds after which the href stops working; null when it never expires. */
  readonly expiresAt: number | null;
  readonly storageKey: string | null;
  readonly fileName: string;
  readonly contentType: string | null;
  readonly bytes: number | null;
  readonly cached: boolean;
  readonly cacheKey: string | null;
  readonly batchName: string | null;
  readonly metadata: Record<string, unknown> | null;
  /** As recorded: without `data` when `dataFrom` names the request that stored it (a cache hit). */
  readonly request: Record<string, unknown>;
  readonly dataFrom: string | null;
  readonly failureReason: string | null;
  readonly credits: number;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  /** What fitting did to the text of the render's fitted elements; null when none were. */
  readonly fit: TextFits | null;
  /** Made with a test key: free, watermarked, kept a day. */
  readonly test: boolean;
  /** Video renders only: frames captured so far (never going back) of the whole video. */
  readonly framesDone: number | null;
  readonly framesTotal: number | null;
  /** null (or left out by older callers) when the request has no webhookUrl. */
  readonly webhook?: WebhookDeliveryView | null;
}

export type ResultKind = 'template' | 'screenshot' | 'pdf';

/** Where the delivery of a result's webhook stands; results without a webhookUrl have none. */
export interface WebhookDeliveryView {
  readonly url: string;
  /**
   * pending: not attempted yet (or the first attempt is in flight); retrying: the last attempt failed
   * and another will come; delivered; failed: retries ran out. Failed renders are delivered too.
   */
  readonly status: 'pending' | 'retrying' | 'delivered' | 'failed';
  readonly attempts: number;
  /** The receiver's last answer; null when it gave none. */
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  /** ISO 8601. */
  readonly deliveredAt: string | null;
}

/** What a cache hit reuses of the render it repeats: the stored file and its shape, nothing else. */
export interface CachedFile {
  readonly requestId: string;
  /** The request that stored the data of this file's requests (see RenderRequested.dataFrom). */
  readonly dataFrom: string;
  readonly storageKey: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly width: number | null;
  readonly height: number | null;
}

export interface ResultFilter {
  readonly templateId?: string;
  readonly batchName?: string;
  readonly page: number;
  readonly size: number;
}

export interface ResultReadModel {
  /** Results of the organization that are not deleted. */
  get(orgId: string, requestId: string): Promise<ResultView | null>;
  list(orgId: string, filter: ResultFilter): Promise<{ items: ResultView[]; total: number }>;
  /** Results newest first by offset and limit, as the v1 requests list pages them. */
  slice(orgId: string, window: { readonly offset: number; readonly limit: number }): Promise<ResultView[]>;
  /** The file of the newest finished, undeleted render with this cache key, while it is still stored. */
  findCached(orgId: string, cacheKey: string): Promise<CachedFile | null>;
  /** Requests of every organization still pending that were made before `before`, oldest first. */
  stalePending(before: Date, limit: number): Promise<{ readonly requestId: string; readonly orgId: string }[]>;
  /** Finished, undeleted results of test keys, of every organization, whose link expired before `nowSeconds`, oldest first. */
  expiredTestResults(nowSeconds: number, limit: number): Promise<{ readonly requestId: string; readonly orgId: string }[]>;
}

/** An organization's uploaded font. */
export interface FontView {
  readonly id: string;
  readonly orgId: string;
  readonly family: string;
  readonly originalName: string;
  readonly weight: number;
  readonly style: FontStyle;
  readonly format: FontFormat;
  readonly subsets: readonly string[];
  readonly category: string;
  readonly bytes: number;
  readonly storageKey: string;
  readonly createdAt: Date;
}

/** An organization's uploaded image. */
export interface UploadView {
  readonly id: string;
  readonly orgId: string;
  readonly contentType: ImageUploadType;
  readonly bytes: number;
  readonly width: number;
  readonly height: number;
  readonly storageKey: string;
  readonly createdAt: Date;
}

/** Uploaded fonts and images; every lookup is scoped to one organization. */
export interface AssetReadModel {
  listFonts(orgId: string): Promise<FontView[]>;
  getFont(orgId: string, fontId: string): Promise<FontView | null>;
  /** Newest first; `page` is zero-based. */
  listUploads(orgId: string, paging: { readonly page: number; readonly size: number }): Promise<{ items: UploadView[]; total: number }>;
  getUpload(orgId: string, uploadId: string): Promise<UploadView | null>;
}

/** A batch as its stream tells it; how far its rows got is read from their results. */
export interface BatchView {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly templateId: string;
  readonly templateVersion: number | null;
  readonly outputFormat: string;
  readonly total: number;
  /** What the rows cost if none is a cache hit. */
  readonly credits: number;
  readonly merge: boolean;
  readonly webhookUrl: string | null;
  readonly rowsStorageKey: string;
  readonly status: 'pending' | 'cancelled' | 'ended';
  readonly createdAt: Date;
  readonly cancelledAt: Date | null;
  readonly endedAt: Date | null;
  /** The counts the batch ended with; null until it ends. */
  readonly ended: { readonly done: number; readonly failed: number; readonly cached: number; readonly skipped: number; readonly creditsCharged: number } | null;
  readonly mergedStorageKey: string | null;
}

/** Where one row of a batch stands: the result of its request. */
export interface BatchRowResult {
  readonly requestId: string;
  readonly status: 'pending' | 'done' | 'failed';
  readonly cached: boolean;
  readonly credits: number;
  readonly failureReason: string | null;
  /** null once the file is deleted, or while there is none. */
  readonly storageKey: string | null;
  readonly contentType: string | null;
  readonly createdAt: Date;
}

export interface BatchReadModel {
  get(orgId: string, batchId: string): Promise<BatchView | null>;
  /** Newest first. */
  list(orgId: string, page: { readonly page: number; readonly size: number }): Promise<{ items: BatchView[]; total: number }>;
  findByName(orgId: string, name: string): Promise<BatchView | null>;
  /** Batches of every organization accepted before `before` that have not ended nor been cancelled, oldest first. */
  unended(before: Date, limit: number): Promise<{ readonly batchId: string; readonly orgId: string }[]>;
  /** The results of these requests of the organization that exist and are not deleted, by request id. */
  rowResults(orgId: string, requestIds: readonly string[]): Promise<ReadonlyMap<string, BatchRowResult>>;
}
