import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream, type StoredSecret } from '../../domain/accounts/account-events.js';
import type { OpenAccountState } from '../../domain/accounts/account.js';
import { notFound } from '../../domain/shared/errors.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import type { WebhookSecretGenerator } from '../ports/webhook-sender.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onAccountStream } from '../shared/stream-commands.js';
import type { RequestContext } from '../shared/request-context.js';
import { aggregateStream } from '../shared/stream-reads.js';

export interface WebhookSecretsDeps extends CommandDeps {
  readonly generator: WebhookSecretGenerator;
  /** Secrets enter the account stream sealed, so a copy of the event log alone does not reveal them. */
  readonly secretSealer: SecretSealer;
}

/** After a rotation the old secret signs too, this long, so receivers can switch without losing deliveries. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** Too short a key makes forging a signature feasible; secrets come from a generator, so this guards a bug. */
const MIN_SECRET_LENGTH = 32;

export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;

/**
 * The organization's webhook secret, read from its account stream (the source of truth, so a read
 * right after a rotation sees it). Accounts opened before secrets existed get one on first use.
 * Secrets are sealed here before a command carries them and opened only to be shown or to sign.
 */
export const createWebhookSecrets = (deps: WebhookSecretsDeps) => {
  const fresh = (): { plain: string; sealed: string } => {
    const plain = deps.generator.generate();
    if (plain.length < MIN_SECRET_LENGTH) throw new Error(`a webhook secret needs at least ${MIN_SECRET_LENGTH} characters`);
    return { plain, sealed: deps.secretSealer.seal(plain) };
  };

  /** Secrets issued before sealing existed stay in the clear in their events; rotating takes them out of use. */
  const reveal = (secret: StoredSecret): string => ('sealed' in secret ? deps.secretSealer.open(secret.sealed) : secret.plain);

  const openAccount = async (orgId: string): Promise<OpenAccountState> => {
    const { state } = await aggregateStream(deps.eventStore, accountStream(orgId), accountDecider);
    if (state.status !== 'open') throw notFound('Organization');
    return state;
  };

  /** The account with a secret, issuing one when it has none; two callers at once end up with the same one. */
  const withSecret = async (orgId: string, context: RequestContext): Promise<OpenAccountState & { webhookSecret: StoredSecret }> => {
    const account = await openAccount(orgId);
    if (account.webhookSecret !== null) return { ...account, webhookSecret: account.webhookSecret };
    const { state } = await onAccountStream(
      deps,
      orgId,
      { type: 'IssueWebhookSecret', data: { orgId, sealedSecret: fresh().sealed, now: deps.clock.now().toISOString() } },
      context,
    );
    if (state.status !== 'open' || state.webhookSecret === null) throw notFound('Organization');
    return { ...state, webhookSecret: state.webhookSecret };
  };

  return {
    /** A new secret, sealed, for an account being opened. */
    newSealedSecret: (): string => fresh().sealed,

    current: async (orgId: string, context: RequestContext): Promise<string> => reveal((await withSecret(orgId, context)).webhookSecret),

    /** The secrets a webhook is signed with now: the current one, then the previous one while its grace lasts. */
    async signingSecrets(orgId: string, context: RequestContext): Promise<string[]> {
      const account = await withSecret(orgId, context);
      const previous = account.previousWebhookSecret;
      const graceLeft = previous !== null && Date.parse(previous.rotatedAt) + ROTATION_GRACE_MS > deps.clock.now().getTime();
      return previous !== null && graceLeft ? [reveal(account.webhookSecret), reveal(previous.secret)] : [reveal(account.webhookSecret)];
    },

    /** A new secret; the account's decider refuses an organization that does not exist. */
    async rotate(orgId: string, context: RequestContext): Promise<string> {
      const { plain, sealed } = fresh();
      await onAccountStream(
        deps,
        orgId,
        { type: 'RotateWebhookSecret', data: { orgId, sealedSecret: sealed, now: deps.clock.now().toISOString() } },
        context,
      );
      return plain;
    },
  };
};
