import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/accounts/account-events.js';
import type { AccountReadModel, AccountView, ApiKeyView } from '../ports/read-models.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import type { ApiKeyCodec } from '../ports/security.js';
import type { WebhookSecretGenerator } from '../ports/webhook-sender.js';
import { requireScope } from '../shared/scopes.js';
import { createWebhookSecrets } from '../webhooks/webhook-secrets.js';
import { systemContextFor, type Caller, type RequestContext } from '../shared/request-context.js';
import type { AccountCommandDeps } from './account-command.js';
import { issueApiKey } from './issue-api-key.js';
import { openAccount } from './open-account.js';
import { revokeApiKey } from './revoke-api-key.js';

export interface PlanDefaults {
  readonly name: string;
  readonly credits: number;
  readonly uploadsBytes: number;
}

export interface AccountServiceDeps extends AccountCommandDeps {
  readonly accounts: AccountReadModel;
  readonly apiKeys: ApiKeyCodec;
  readonly defaultPlan: PlanDefaults;
  readonly webhookSecretGenerator: WebhookSecretGenerator;
  readonly secretSealer: SecretSealer;
}

export interface IssuedKey {
  readonly keyId: string;
  /** Shown once; only its hash is kept. */
  readonly key: string;
  readonly orgId: string;
}

export type AccountService = ReturnType<typeof createAccountService>;


/** Organizations and their keys as the administration and the interfaces use them; each command is in a file named after it. */
export const createAccountService = (deps: AccountServiceDeps) => {
  const systemContext = (orgId: string): RequestContext => systemContextFor(orgId, deps.ids.next());
  const webhookSecrets = createWebhookSecrets({ ...deps, generator: deps.webhookSecretGenerator });

  const openOrganization = async (input: { name: string; orgId?: string; credits?: number }): Promise<string> => {
    const orgId = input.orgId ?? deps.ids.next();
    const { name: planName, uploadsBytes } = deps.defaultPlan;
    const plan = { name: planName, credits: input.credits ?? deps.defaultPlan.credits, uploadsBytes };
    await openAccount(deps, { orgId, name: input.name, plan, sealedWebhookSecret: webhookSecrets.newSealedSecret() });
    return orgId;
  };

  const issueKeyWith = (orgId: string, key: string, prefix: string, keyId: string, label: string, scopes: readonly ApiKeyScope[], test = false) =>
    issueApiKey(deps, { orgId, keyId, label, prefix, hash: deps.apiKeys.hash(key), scopes, ...(test ? { test } : {}) });

  return {
    openOrganization,

    /** A test key (`test`) renders and captures for free, watermarked and kept a day. */
    async issueApiKey(orgId: string, input: { label: string; scopes?: readonly ApiKeyScope[]; test?: boolean }): Promise<IssuedKey> {
      const { key, prefix } = deps.apiKeys.generate();
      const keyId = deps.ids.next();
      await issueKeyWith(orgId, key, prefix, keyId, input.label, input.scopes ?? API_KEY_SCOPES, input.test === true);
      return { keyId, key, orgId };
    },

    async revokeApiKey(orgId: string, keyId: string): Promise<void> {
      await revokeApiKey(deps, orgId, keyId);
    },

    /**
     * Makes sure `key` opens an organization, creating both when needed. Ids derive from the key's
     * hash so two instances bootstrapping the same key at once converge on one organization.
     */
    async ensureBootstrapKey(key: string): Promise<{ orgId: string; created: boolean }> {
      const hash = deps.apiKeys.hash(key);
      const existing = await deps.accounts.findKeyByHash(hash);
      if (existing) return { orgId: existing.orgId, created: false };
      const orgId = `org-${hash.slice(0, 16)}`;
      if (!(await deps.accounts.getAccount(orgId))) {
        await openOrganization({ name: 'bootstrap', orgId }).catch(async (error: unknown) => {
          if (!(await deps.accounts.getAccount(orgId))) throw error;
        });
      }
      await issueKeyWith(orgId, key, key.slice(0, 8), `key-${hash.slice(0, 16)}`, 'bootstrap', API_KEY_SCOPES);
      return { orgId, created: true };
    },

    /** The caller a key stands for, or null for an unknown or revoked key. */
    async authenticate(key: string): Promise<Caller | null> {
      // Found by its digest, so the key matches: hashing it again to compare would only cost time on every request.
      const found: ApiKeyView | null = await deps.accounts.findKeyByHash(deps.apiKeys.hash(key));
      if (!found || found.revoked) return null;
      return { orgId: found.orgId, actor: found.id, scopes: found.scopes, ...(found.test ? { test: true } : {}) };
    },

    getAccount: (orgId: string): Promise<AccountView | null> => deps.accounts.getAccount(orgId),
    listAccounts: (): Promise<AccountView[]> => deps.accounts.listAccounts(),
    listKeys: (orgId: string): Promise<ApiKeyView[]> => deps.accounts.listKeys(orgId),

    /** The secret webhooks to the organization are signed with (administration: any organization). */
    webhookSecret: async (orgId: string): Promise<{ orgId: string; secret: string }> => ({
      orgId,
      secret: await webhookSecrets.current(orgId, systemContext(orgId)),
    }),
    rotateWebhookSecret: async (orgId: string): Promise<{ orgId: string; secret: string }> => ({
      orgId,
      secret: await webhookSecrets.rotate(orgId, systemContext(orgId)),
    }),

    /** The caller's own organization's webhook secret: whoever holds it can forge webhooks, so administration only. */
    async callerWebhookSecret(context: RequestContext): Promise<{ secret: string }> {
      requireScope(context, 'admin');
      return { secret: await webhookSecrets.current(context.caller.orgId, context) };
    },
    async rotateCallerWebhookSecret(context: RequestContext): Promise<{ secret: string }> {
      requireScope(context, 'admin');
      return { secret: await webhookSecrets.rotate(context.caller.orgId, context) };
    },
  };
};
