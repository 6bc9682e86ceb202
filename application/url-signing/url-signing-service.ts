import type { RequestContext } from '../shared/request-context.js';
import { createSigningKey } from './create-signing-key/create-signing-key.js';
import { getSigningKey, listSigningKeys } from './list-signing-keys/list-signing-keys.js';
import { revokeSigningKey } from './revoke-signing-key/revoke-signing-key.js';
import { rotateSigningKey } from './rotate-signing-key/rotate-signing-key.js';
import type { SigningKeyDeps } from './signing-key-command.js';
import { signImageUrlFor, type SignImageUrlDeps, type SignImageUrlInput } from './sign-image-url/sign-image-url.js';
import { verifySignedImageUrl, type SignedImageRequest } from './verify-signed-image-url/verify-signed-image-url.js';

export type UrlSigningServiceDeps = SigningKeyDeps & SignImageUrlDeps;

export type UrlSigningService = ReturnType<typeof createUrlSigningService>;

/** Signed image URLs: the organization's signing keys, URLs signed for it, and their verification. */
export const createUrlSigningService = (deps: UrlSigningServiceDeps) => ({
  listKeys: (context: RequestContext) => listSigningKeys(deps, context),
  getKey: (context: RequestContext, keyId: string) => getSigningKey(deps, context, keyId),
  createKey: (context: RequestContext) => createSigningKey(deps, context),
  rotateKey: (context: RequestContext, keyId: string) => rotateSigningKey(deps, context, keyId),
  revokeKey: (context: RequestContext, keyId: string) => revokeSigningKey(deps, context, keyId),
  signUrl: (context: RequestContext, input: SignImageUrlInput) => signImageUrlFor(deps, context, input),
  verify: (request: SignedImageRequest) => verifySignedImageUrl(deps, request),
});
