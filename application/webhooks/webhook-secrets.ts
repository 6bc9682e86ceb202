import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import type { OpenAccountState } from '../../domain/accounts/account.js';
import { foldEvents } from '../../domain/shared/decider.js';
import { notFound } from '../../domain/shared/errors.js';
import type { WebhookSecretGenerator } from '../ports/webhook-sender.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import type { RequestContext } from '../shared/request-context.js';

export interface WebhookSecretsDeps extends CommandDeps {
  readonly generator: WebhookSecretGenerator;
}

/** After a rotation the old secret signs too, this long, so receivers can switch without losing deliveries. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;

/**
 * The organization's webhook secret, read from its account stream (the source of truth, so a read
 * right after a rotation sees it). Accounts opened before secrets existed get one on first use.
 */
export const createWebhookSecrets = (deps: WebhookSecretsDeps) => {
  const openAccount = async (orgId: string): Promise<OpenAccountState> => {
    const state = foldEvents(accountDecider, (await deps.eventStore.readStream(accountStream(orgId))) as never[]);
    if (state.status !== 'open') throw notFound('Organization');
    return state;
  };

  /** The account with a secret, issuing one when it has none; two callers at once end up with the same one. */
  const withSecret = async (orgId: string, context: RequestContext): Promise<OpenAccountState & { webhookSecret: string }> => {
    const account = await openAccount(orgId);
    if (account.webhookSecret !== null) return { ...account, webhookSecret: account.webhookSecret };
    const { state } = await handleCommand(
      deps,
      accountDecider,
      accountStream(orgId),
      { type: 'IssueWebhookSecret', data: { orgId, secret: deps.generator.generate(), now: deps.clock.now().toISOString() } },
      context,
    );
    if (state.status !== 'open' || state.webhookSecret === null) throw notFound('Organization');
    return { ...state, webhookSecret: state.webhookSecret };
  };

  return {
    current: async (orgId: string, context: RequestContext): Promise<string> => (await withSecret(orgId, context)).webhookSecret,

    /** The secrets a webhook is signed with now: the current one, then the previous one while its grace lasts. */
    async signingSecrets(orgId: string, context: RequestContext): Promise<string[]> {
      const account = await withSecret(orgId, context);
      const previous = account.previousWebhookSecret;
      const graceLeft = previous !== null && Date.parse(previous.rotatedAt) + ROTATION_GRACE_MS > deps.clock.now().getTime();
      return previous !== null && graceLeft ? [account.webhookSecret, previous.secret] : [account.webhookSecret];
    },

    /** A new secret; the account's decider refuses an organization that does not exist. */
    async rotate(orgId: string, context: RequestContext): Promise<string> {
      const secret = deps.generator.generate();
      await handleCommand(
        deps,
        accountDecider,
        accountStream(orgId),
        { type: 'RotateWebhookSecret', data: { orgId, secret, now: deps.clock.now().toISOString() } },
        context,
      );
      return secret;
    },
  };
};
