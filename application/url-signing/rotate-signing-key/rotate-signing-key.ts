import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { freshSecret, handleSigningKeyCommand, type SigningKeyDeps } from '../signing-key-command.js';
import type { NewSigningSecretDto } from '../signing-key-dto.js';

/**
 * A new secret under the same identifier, for a secret that leaked: URLs signed with the old one
 * stop working at once. To move published URLs over without a gap, create a second key instead,
 * re-sign with it, then revoke the first.
 */
export const rotateSigningKey = async (deps: SigningKeyDeps, context: RequestContext, keyId: string): Promise<NewSigningSecretDto> => {
  requireScope(context, 'admin');
  const { plain, sealed } = freshSecret(deps);
  const now = deps.clock.now().toISOString();
  // The account's decider refuses a key of another organization: it is not on this account stream.
  await handleSigningKeyCommand(deps, context, { type: 'RotateUrlSigningKey', data: { orgId: context.caller.orgId, keyId, sealedSecret: sealed, now } });
  return { identifier: keyId, secret: plain, createdAt: now };
};
