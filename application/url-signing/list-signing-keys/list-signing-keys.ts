import { notFound } from '../../../domain/shared/errors.js';
import type { UrlSigningKeyReadModel } from '../../ports/read-models.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { toSigningKeyDto, type SigningKeyDto } from '../signing-key-dto.js';

export interface ListSigningKeysDeps {
  readonly signingKeys: UrlSigningKeyReadModel;
}

/** The caller's organization's keys, revoked ones included, oldest first; never a secret. */
export const listSigningKeys = async (deps: ListSigningKeysDeps, context: RequestContext): Promise<SigningKeyDto[]> => {
  requireScope(context, 'admin');
  return (await deps.signingKeys.list(context.caller.orgId)).map(toSigningKeyDto);
};

export const getSigningKey = async (deps: ListSigningKeysDeps, context: RequestContext, keyId: string): Promise<SigningKeyDto> => {
  requireScope(context, 'admin');
  const key = await deps.signingKeys.get(context.caller.orgId, keyId);
  if (!key) throw notFound('URL-signing key');
  return toSigningKeyDto(key);
};
