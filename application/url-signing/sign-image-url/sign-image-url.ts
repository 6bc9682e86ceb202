import { notFound, validationError } from '../../../domain/shared/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { TemplateReadModel, UrlSigningKeyReadModel, UrlSigningKeyView } from '../../ports/read-models.js';
import type { SecretSealer } from '../../ports/secret-sealer.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { encodeRfc3986, imageUrlPath, type ImageUrlExtension } from '../image-url.js';
import { canonicalQuery, MAX_SIGNED_URL_LIFETIME_SECONDS, signImageUrl, type SignedImageUrlParts } from '../image-url-signature.js';

export interface SignImageUrlDeps {
  readonly signingKeys: UrlSigningKeyReadModel;
  readonly templates: Pick<TemplateReadModel, 'get'>;
  readonly secretSealer: SecretSealer;
  readonly clock: Clock;
  /** Where clients reach the service: the URL is put in pages, so it must be absolute. */
  readonly publicBaseUrl: string;
}

export interface SignImageUrlInput {
  readonly template: string;
  /** Template values by name, as strings: they travel in a query string. */
  readonly data?: Readonly<Record<string, string>>;
  /** Unix seconds. */
  readonly expires: number;
  readonly format: ImageUrlExtension;
  /** The organization's newest active key when absent. */
  readonly keyId?: string;
}

export interface SignedImageUrlDto {
  readonly url: string;
  /** ISO 8601. */
  readonly expiresAt: string;
}

const signingKeyOf = async (deps: SignImageUrlDeps, orgId: string, keyId: string | undefined): Promise<UrlSigningKeyView> => {
  if (keyId !== undefined) {
    const key = await deps.signingKeys.get(orgId, keyId);
    if (!key) throw notFound('URL-signing key');
    if (key.revokedAt) throw validationError(`URL-signing key ${keyId} is revoked`, [`keyId: ${keyId} was revoked; name an active key or leave keyId out`]);
    return key;
  }
  const newest = (await deps.signingKeys.list(orgId)).filter((key) => key.revokedAt === null).at(-1);
  if (!newest) {
    throw validationError('The organization has no URL-signing key', ['keyId: none to sign with; create one with POST /api/v2/url-signing-keys']);
  }
  return newest;
};

/**
 * A signed image URL made by the service, for clients that would rather not sign themselves: the
 * same URL a client signing with the key's secret would make (see image-url-signature.ts).
 */
export const signImageUrlFor = async (deps: SignImageUrlDeps, context: RequestContext, input: SignImageUrlInput): Promise<SignedImageUrlDto> => {
  requireScope(context, 'admin');
  const orgId = context.caller.orgId;
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  if (input.expires <= now) {
    throw validationError('The expiry is in the past', [`expires: ${input.expires} (unix seconds) has passed; a signed URL must expire in the future`]);
  }
  if (input.expires > now + MAX_SIGNED_URL_LIFETIME_SECONDS) {
    throw validationError('The expiry is too far off', [`expires: a signed URL may be valid for at most ${MAX_SIGNED_URL_LIFETIME_SECONDS} seconds (366 days) from now`]);
  }
  // A URL for a template that does not exist would only ever answer 400: say so now.
  if (!(await deps.templates.get(orgId, input.template))) throw validationError(`Template ${input.template} not found`, [`template: no template ${input.template}`]);
  const key = await signingKeyOf(deps, orgId, input.keyId);
  const parts: SignedImageUrlParts = {
    templateId: input.template,
    extension: input.format,
    values: Object.entries(input.data ?? {}),
    expires: String(input.expires),
    keyId: key.id,
  };
  const signature = signImageUrl(deps.secretSealer.open(key.sealedSecret), parts);
  const query = [canonicalQuery(parts.values), `expires=${parts.expires}`, `keyId=${encodeRfc3986(key.id)}`, `signature=${signature}`].filter(Boolean).join('&');
  return {
    url: `${deps.publicBaseUrl.replace(/\/+$/, '')}${imageUrlPath(input.template, input.format)}?${query}`,
    expiresAt: new Date(input.expires * 1000).toISOString(),
  };
};
