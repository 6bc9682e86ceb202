import type { AssetCommand } from './asset-commands.js';
import type { UrlSigningCommand } from './url-signing-commands.js';
import type { ApiKeyScope, Plan } from './account-events.js';

export interface OpenAccount {
  readonly type: 'OpenAccount';
  readonly data: {
    readonly orgId: string;
    readonly name: string;
    readonly plan: Plan;
    readonly now: string;
    /** Issued with the account, so its webhooks are signed from the first one; sealed by the application. */
    readonly sealedWebhookSecret?: string;
  };
}

export interface IssueApiKey {
  readonly type: 'IssueApiKey';
  readonly data: {
    readonly orgId: string;
    readonly keyId: string;
    readonly label: string;
    readonly prefix: string;
    readonly hash: string;
    readonly scopes: readonly ApiKeyScope[];
    /** A test key: its renders and captures are free, watermarked and short-lived (see ApiKeyIssued). */
    readonly test?: boolean;
    readonly now: string;
  };
}

export interface RevokeApiKey {
  readonly type: 'RevokeApiKey';
  readonly data: { readonly orgId: string; readonly keyId: string; readonly now: string };
}

/** Issues a webhook secret to an account that has none (accounts opened before secrets existed). */
export interface IssueWebhookSecret {
  readonly type: 'IssueWebhookSecret';
  readonly data: { readonly orgId: string; readonly sealedSecret: string; readonly now: string };
}

export interface RotateWebhookSecret {
  readonly type: 'RotateWebhookSecret';
  readonly data: { readonly orgId: string; readonly sealedSecret: string; readonly now: string };
}

export interface ChangeAccountSettings {
  readonly type: 'ChangeAccountSettings';
  readonly data: { readonly orgId: string; readonly apiKeyInQuery: boolean; readonly now: string };
}

export type AccountCommand =
  | OpenAccount
  | IssueApiKey
  | RevokeApiKey
  | IssueWebhookSecret
  | RotateWebhookSecret
  | ChangeAccountSettings
  | AssetCommand
  | UrlSigningCommand;
