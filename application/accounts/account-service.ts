import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream, API_KEY_SCOPES, type ApiKeyScope, type Plan } from '../../domain/accounts/account-events.js';
import type { AccountReadModel, AccountView, ApiKeyView, ProjectionProgress } from '../ports/read-models.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import type { ApiKeyCodec } from '../ports/security.js';
import type { WebhookSecretGenerator } from '../ports/webhook-sender.js';
import { requireScope } from '../shared/scopes.js';
import { createWebhookSecrets } from '../webhooks/webhook-secrets.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { Caller, RequestContext } from '../shared/request-context.js';

export interface PlanDefaults {
  readonly name: string;
  readonly credits: number;
  readonly uploadsBytes: number;
}

export interface AccountServiceDeps extends CommandDeps {
  readonly accounts: AccountReadModel;
  readonly progress: ProjectionProgress;
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

/** yyyy-MM-dd one month after `date` (UTC), the next renewal of a monthly plan. */
export const oneMonthLater = (date: Date): string => {
  const next = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()));
  return next.toISOString().slice(0, 10);
};

export const createAccountService = (deps: AccountServiceDeps) => {
  const systemContext = (orgId: string, correlationId = deps.ids.next()): RequestContext => ({
    caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES },
    correlationId,
  });

  const webhookSecrets = createWebhookSecrets({ ...deps, generator: deps.webhookSecretGenerator, sealer: deps.secretSealer });

  const settle = async (position: number | null) => {
    if (position !== null) await deps.progress.waitFor(position);
  };

  const openOrganization = async (input: { name: string; orgId?: string; credits?: number }): Promise<string> => {
    const orgId = input.orgId ?? deps.ids.next();
    const now = deps.clock.now();
    const credits = input.credits ?? deps.defaultPlan.credits;
    const plan: Plan = {
      name: deps.defaultPlan.name,
      status: 'active',
      credits,
      renewalAmount: credits,
      nextRenewalAt: oneMonthLater(now),
      uploadsBytes: deps.defaultPlan.uploadsBytes,
    };
    const result = await handleCommand(
      deps,
      accountDecider,
      accountStream(orgId),
      {
        type: 'OpenAccount',
        data: { orgId, name: input.name, plan, now: now.toISOString(), sealedWebhookSecret: webhookSecrets.newSealedSecret() },
      },
      systemContext(orgId),
    );
    await settle(result.position);
    return orgId;
  };

  const issueKeyWith = async (orgId: string, key: string, prefix: string, keyId: string, label: string, scopes: readonly ApiKeyScope[]) => {
    const result = await handleCommand(
      deps,
      accountDecider,
      accountStream(orgId),
      {
        type: 'IssueApiKey',
        data: { orgId, keyId, label, prefix, hash: deps.apiKeys.hash(key), scopes, now: deps.clock.now().toISOString() },
      },
      systemContext(orgId),
    );
    await settle(result.position);
  };

  return {
    openOrganization,

    async issueApiKey(orgId: string, input: { label: string; scopes?: readonly ApiKeyScope[] }): Promise<IssuedKey> {
      const { key, prefix } = deps.apiKeys.generate();
      const keyId = deps.ids.next();
      await issueKeyWith(orgId, key, prefix, keyId, input.label, input.scopes ?? API_KEY_SCOPES);
      return { keyId, key, orgId };
    },

    async revokeApiKey(orgId: string, keyId: string): Promise<void> {
      const result = await handleCommand(
        deps,
        accountDecider,
        accountStream(orgId),
        { type: 'RevokeApiKey', data: { orgId, keyId, now: deps.clock.now().toISOString() } },
        systemContext(orgId),
      );
      await settle(result.position);
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
      const found: ApiKeyView | null = await deps.accounts.findKeyByHash(deps.apiKeys.hash(key));
      if (!found || found.revoked || !deps.apiKeys.matches(key, found.hash)) return null;
      return { orgId: found.orgId, actor: found.id, scopes: found.scopes };
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

    /** The caller's own organization's webhook secret; webhooks belong to rendering, so the render scope. */
    async callerWebhookSecret(context: RequestContext): Promise<{ secret: string }> {
      requireScope(context, 'render');
      return { secret: await webhookSecrets.current(context.caller.orgId, context) };
    },
    async rotateCallerWebhookSecret(context: RequestContext): Promise<{ secret: string }> {
      requireScope(context, 'render');
      return { secret: await webhookSecrets.rotate(context.caller.orgId, context) };
    },
  };
};
