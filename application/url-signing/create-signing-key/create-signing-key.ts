import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { freshSecret, handleSigningKeyCommand, type SigningKeyDeps } from '../signing-key-command.js';
import type { NewSigningSecretDto } from '../signing-key-dto.js';

/** A new key for the caller's organization; its secret is in the answer and nowhere else in the clear. */
export const createSigningKey = async (deps: SigningKeyDeps, context: RequestContext): Promise<NewSigningSecretDto> => {
  // A signing key mints URLs that outlive the key that asked for it: account administration.
  requireScope(context, 'admin');
  const keyId = deps.ids.next();
  const { plain, sealed } = freshSecret(deps);
  const now = deps.clock.now().toISOString();
  await handleSigningKeyCommand(deps, context, { type: 'CreateUrlSigningKey', data: { orgId: context.caller.orgId, keyId, sealedSecret: sealed, now } });
  return { identifier: keyId, secret: plain, createdAt: now };
};
