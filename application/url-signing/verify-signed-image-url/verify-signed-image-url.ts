import { DomainError } from '../../../domain/shared/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { UrlSigningKeyReadModel } from '../../ports/read-models.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type { Caller } from '../../shared/request-context.js';
import { MAX_SIGNED_URL_LIFETIME_SECONDS, signatureMatches, type SignedImageUrlParts } from '../image-url-signature.js';

export interface VerifySignedImageUrlDeps {
  readonly signingKeys: Pick<UrlSigningKeyReadModel, 'lookup'>;
  readonly secretSealer: SecretSealer;
  readonly clock: Clock;
}

/** A GET /img request in the signed form; a signature part is null when the URL lacks it or repeats it. */
export interface SignedImageRequest extends Omit<SignedImageUrlParts, 'expires' | 'keyId'> {
  readonly expires: string | null;
  readonly keyId: string | null;
  readonly signature: string | null;
}

export interface VerifiedImageUrl {
  /** The organization whose key signed the URL; it may render, nothing else. */
  readonly caller: Caller;
  /** How long the URL still works: caches may keep its image that long. */
  readonly secondsLeft: number;
}

/** Unix seconds as a signer writes them: digits without a leading zero, so each expiry has one spelling. */
const EXPIRES_PATTERN = /^[1-9]\d{0,11}$/;
const MAX_KEY_ID_LENGTH = 200;

const repeatedName = (values: SignedImageRequest['values']): string | null => {
  const seen = new Set<string>();
  for (const [name] of values) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
};

/** The reason goes to the caller; never the signature, which logs must not hold either. */
const refused = (reason: string) => new DomainError('forbidden', 'This signed image URL is not valid', [reason]);

/**
 * Who a signed GET /img URL renders for, or a 403 before anything is recorded or charged: an
 * unknown or revoked key, a signature that does not match every part of the URL, or an expiry
 * that has passed. The expiry is checked after the signature, so an expired URL is one that was genuine.
 */
export const verifySignedImageUrl = async (deps: VerifySignedImageUrlDeps, request: SignedImageRequest): Promise<VerifiedImageUrl> => {
  const { expires, keyId, signature } = request;
  if (expires === null || keyId === null || signature === null) throw refused('a signed URL carries expires, keyId and signature, once each');
  if (!EXPIRES_PATTERN.test(expires)) throw refused('expires: must be unix seconds');
  // The canonical form sorts repeated names by value, so their order is not signed, yet the last one wins.
  const repeated = repeatedName(request.values);
  if (repeated !== null) throw refused(`${repeated}: a signed URL names each value once`);
  const key = keyId.length <= MAX_KEY_ID_LENGTH ? await deps.signingKeys.lookup(keyId) : null;
  if (!key || key.revokedAt !== null) throw refused('keyId: no such URL-signing key, or it was revoked');
  if (!signatureMatches(deps.secretSealer.open(key.sealedSecret), { ...request, expires, keyId }, signature)) throw refused('signature: does not match the URL');
  const secondsLeft = Number(expires) - Math.floor(deps.clock.now().getTime() / 1000);
  if (secondsLeft <= 0) throw refused(`expires: the URL expired at ${new Date(Number(expires) * 1000).toISOString()}`);
  if (secondsLeft > MAX_SIGNED_URL_LIFETIME_SECONDS) throw refused(`expires: a signed URL may be valid for at most ${MAX_SIGNED_URL_LIFETIME_SECONDS} seconds (366 days)`);
  return { caller: { orgId: key.orgId, actor: key.id, scopes: ['render'] }, secondsLeft };
};
