import type { DomainEvent } from '../shared/events.js';

/*
 * An organization's URL-signing keys: secrets that sign GET /img URLs, so a URL put in a published
 * page (an <img>, an og:image tag) carries a signature instead of the organization's API key. They
 * live on the account stream beside the API keys they stand in for. The service must recompute
 * signatures, so it keeps the secret itself, sealed by the application as webhook secrets are.
 */

export type UrlSigningKeyCreated = DomainEvent<'UrlSigningKeyCreated', { keyId: string; secret: { sealed: string }; createdAt: string }>;

/** A new secret under the same identifier: URLs signed with the old one stop working at once. */
export type UrlSigningKeyRotated = DomainEvent<'UrlSigningKeyRotated', { keyId: string; secret: { sealed: string }; rotatedAt: string }>;

/** URLs signed with the key stop working; the identifier is never used again. */
export type UrlSigningKeyRevoked = DomainEvent<'UrlSigningKeyRevoked', { keyId: string; revokedAt: string }>;

export type UrlSigningEvent = UrlSigningKeyCreated | UrlSigningKeyRotated | UrlSigningKeyRevoked;
