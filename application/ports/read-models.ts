import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import type { Editor, OutputFormat } from '../../domain/templates/template-settings.js';

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
  readonly revision: number;
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
  readonly uploadsUsed: number;
  readonly uploadsTotal: number;
}

export interface AccountReadModel {
  findKeyByHash(hash: string): Promise<ApiKeyView | null>;
  listKeys(orgId: string): Promise<ApiKeyView[]>;
  getAccount(orgId: string): Promise<AccountView | null>;
  listAccounts(): Promise<AccountView[]>;
}

/** Lets a writer wait until the read models reflect its write (read-your-writes). */
export interface ProjectionProgress {
  /** Resolves true once every projection passed `position`, false when `timeoutMs` ran out first. */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
}
