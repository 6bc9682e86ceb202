import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodeRfc3986, imageUrlPath, type ImageUrlExtension } from './image-url.js';

/*
 * A signed image URL: GET /img/{templateId}.{ext}?<pairs>&expires=<unix s>&keyId=<id>&signature=<hex>.
 * The signature is the lowercase hex HMAC-SHA256, keyed with the signing key's secret (its UTF-8
 * text, as `openssl dgst -hmac` takes it), of the canonical form: four lines joined by "\n", no
 * newline at the end:
 *
 *   /img/<templateId>.<ext>      the path, templateId RFC 3986-encoded
 *   <pairs>                      every other query pair, name and value RFC 3986-encoded, as
 *                                name=value, sorted by name then value, joined by "&" (empty when none)
 *   <expires>                    unix seconds, as written in the URL
 *   <keyId>                      the signing key's identifier
 *
 * Pairs are decoded from the URL and encoded again, so `%7E` and `~` sign alike; a space must be
 * sent as %20 (a `+` decodes to a space too, but signers write the canonical form with %20).
 */

/**
 * The longest a signed URL may stay valid. A URL cannot be taken back except by revoking its signing
 * key (and every URL of that key with it), so none is minted, or served, for longer than a year.
 */
export const MAX_SIGNED_URL_LIFETIME_SECONDS = 366 * 24 * 60 * 60;

/** The query names a signed URL carries besides its values; any of them makes a URL a signed one. */
export const SIGNATURE_PARAMETERS = ['expires', 'keyId', 'signature'] as const;

export interface SignedImageUrlParts {
  readonly templateId: string;
  readonly extension: ImageUrlExtension;
  /** The template values, as the query's pairs, decoded. */
  readonly values: readonly (readonly [string, string])[];
  readonly expires: string;
  readonly keyId: string;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The values as they are signed, and as a URL the service builds carries them. */
export const canonicalQuery = (values: SignedImageUrlParts['values']): string =>
  values
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([nameA, valueA], [nameB, valueB]) => byCodeUnits(nameA, nameB) || byCodeUnits(valueA, valueB))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

export const canonicalForm = (parts: SignedImageUrlParts): string =>
  [imageUrlPath(parts.templateId, parts.extension), canonicalQuery(parts.values), parts.expires, parts.keyId].join('\n');

export const signImageUrl = (secret: string, parts: SignedImageUrlParts): string => createHmac('sha256', secret).update(canonicalForm(parts)).digest('hex');

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Whether `signature` is the one `secret` makes for these parts. Compared in constant time, so a
 * forger cannot find the signature byte by byte from how long refusals take.
 */
export const signatureMatches = (secret: string, parts: SignedImageUrlParts, signature: string): boolean => {
  if (!SIGNATURE_PATTERN.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signImageUrl(secret, parts), 'hex'), Buffer.from(signature, 'hex'));
};
