import { z } from 'zod';
import { NewSigningSecret, SignedUrlBody, SignedUrlResponse, SigningKey, SigningKeyIdParam } from '../../schemas/url-signing-schemas.js';
import { operation } from '../operation.js';

// The organization's URL-signing keys, and image URLs signed by the service (extensions of this service).

const tags = ['signed-urls'] as const;

export const listUrlSigningKeys = operation({
  id: 'listUrlSigningKeys',
  method: 'get',
  path: '/api/v2/url-signing-keys',
  tags,
  summary: "The organization's URL-signing keys, revoked ones included, oldest first; never a secret",
  input: {},
  answer: { description: 'The keys', schema: z.array(SigningKey) },
  call: ({ urlSigning }, context) => urlSigning.listKeys(context),
});

export const createUrlSigningKey = operation({
  id: 'createUrlSigningKey',
  method: 'post',
  path: '/api/v2/url-signing-keys',
  tags,
  summary: 'Create a URL-signing key; its secret is in this answer only (the service keeps it encrypted)',
  description: 'At most 10 active keys per organization (400 beyond).',
  input: {},
  answer: { description: 'The key and its secret', schema: NewSigningSecret },
  call: ({ urlSigning }, context) => urlSigning.createKey(context),
});

export const getUrlSigningKey = operation({
  id: 'getUrlSigningKey',
  method: 'get',
  path: '/api/v2/url-signing-keys/{identifier}',
  tags,
  summary: 'Read one URL-signing key, without its secret',
  input: { path: SigningKeyIdParam },
  answer: { description: 'The key', schema: SigningKey },
  call: ({ urlSigning }, context, { path }) => urlSigning.getKey(context, path.identifier),
});

/** POST on a key rotates it: a new secret under the same identifier. */
export const rotateUrlSigningKey = operation({
  id: 'rotateUrlSigningKey',
  method: 'post',
  path: '/api/v2/url-signing-keys/{identifier}',
  tags,
  summary: 'Rotate a URL-signing key: a new secret under the same identifier; URLs signed with the old secret answer 403 from now on',
  description: 'A revoked key cannot be rotated (409). To move published URLs without a gap, create a second key, re-sign, then revoke the first.',
  input: { path: SigningKeyIdParam },
  answer: { description: 'The key and its new secret', schema: NewSigningSecret },
  call: ({ urlSigning }, context, { path }) => urlSigning.rotateKey(context, path.identifier),
});

export const revokeUrlSigningKey = operation({
  id: 'revokeUrlSigningKey',
  method: 'delete',
  path: '/api/v2/url-signing-keys/{identifier}',
  tags,
  summary: 'Revoke a URL-signing key: every URL it signed answers 403',
  input: { path: SigningKeyIdParam },
  answer: { description: 'Revoked' },
  call: ({ urlSigning }, context, { path }) => urlSigning.revokeKey(context, path.identifier),
});

export const signImageUrl = operation({
  id: 'signImageUrl',
  method: 'post',
  path: '/api/v2/signed-urls',
  tags,
  summary: 'A signed GET /img URL for a template, signed by the service (for clients that do not sign themselves)',
  description: "The URL is on the service's public base URL (PUBLIC_BASE_URL) and is the same one a client signing with the key's secret would make.",
  input: { body: SignedUrlBody },
  answer: { description: 'The absolute URL and when it expires', schema: SignedUrlResponse },
  call: ({ urlSigning }, context, { body }) => urlSigning.signUrl(context, body),
});
