import type { ApiKeyScope } from '../../domain/accounts/account-events.js';
import { handleAccountCommand, type AccountCommandDeps } from './account-command.js';

export interface IssueApiKeyInput {
  readonly orgId: string;
  readonly keyId: string;
  readonly label: string;
  /** The key's first characters, shown to tell keys apart; the key itself is never stored. */
  readonly prefix: string;
  readonly hash: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly test?: boolean;
}

/** Records a new API key of an organization by its hash. */
export const issueApiKey = (deps: AccountCommandDeps, input: IssueApiKeyInput) =>
  handleAccountCommand(deps, input.orgId, { type: 'IssueApiKey', data: { ...input, now: deps.clock.now().toISOString() } });
