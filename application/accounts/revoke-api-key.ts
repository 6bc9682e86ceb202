import { handleAccountCommand, type AccountCommandDeps } from './account-command.js';

/** Revokes an API key: it authenticates nothing from then on. */
export const revokeApiKey = (deps: AccountCommandDeps, orgId: string, keyId: string) =>
  handleAccountCommand(deps, orgId, { type: 'RevokeApiKey', data: { orgId, keyId, now: deps.clock.now().toISOString() } });
