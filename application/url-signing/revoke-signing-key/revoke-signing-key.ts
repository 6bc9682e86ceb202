import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { handleSigningKeyCommand, type SigningKeyDeps } from '../signing-key-command.js';

/** Every URL signed with the key stops rendering; revoking it again changes nothing. */
export const revokeSigningKey = async (deps: SigningKeyDeps, context: RequestContext, keyId: string): Promise<void> => {
  requireScope(context, 'admin');
  await handleSigningKeyCommand(deps, context, { type: 'RevokeUrlSigningKey', data: { orgId: context.caller.orgId, keyId, now: deps.clock.now().toISOString() } });
};
