import { z } from 'zod';
import { API_KEY_SCOPES, type AccountEvent } from '../../domain/accounts/account-events.js';
import type { CreditsCharged, CreditsRefunded } from '../../domain/ledger/ledger-events.js';
import { FONT_FORMATS, FONT_STYLES, IMAGE_UPLOAD_TYPES } from '../../domain/accounts/asset-events.js';
import { SEALED_SECRET } from '../security/aes-gcm-secret-sealer.js';
import { id, isoDate, isoTime } from './common-schemas.js';
import { credits } from './ledger-event-schemas.js';
import { eventSchema, type EventSchemas } from './versioned-event-schema.js';


/** The scopes of versions 1 and 2 of ApiKeyIssued, before account administration had a scope of its own. */
const SCOPES_BEFORE_ADMIN = ['render', 'templates', 'audit'];

/**
 * v1 held webhook secrets in the clear; since v2 they are sealed, and an append of anything else is
 * refused. Stored v1 events are never rewritten: they are read as `{ plain }`.
 */
const sealedSecret = z.strictObject({ sealed: z.string().regex(SEALED_SECRET, 'must be a sealed secret') });
const plainSecretV1 = (v1: Record<string, unknown>) => ({ ...v1, secret: { plain: v1.secret } });

const bytes = z.number().int().nonnegative();
const pixels = z.number().int().positive();

const plan = z.object({
  name: z.string(),
  status: z.string(),
  credits,
  renewalAmount: credits,
  nextRenewalAt: isoDate,
  uploadsBytes: z.number().int().nonnegative(),
});

/** Charges and refunds are the ledger's (ledger-event-schemas.ts), wherever a log holds them. */
export const accountEventSchemas: EventSchemas<Exclude<AccountEvent, CreditsCharged | CreditsRefunded>> = {
  AccountOpened: eventSchema(z.object({ orgId: id, name: z.string(), plan, openedAt: isoTime })),
  /** v1 keys had no scopes and could do everything; v2 names the scopes, so v1 keys get them all; v3 adds admin. */
  ApiKeyIssued: eventSchema(
    z.object({
      keyId: id,
      label: z.string(),
      prefix: z.string(),
      hash: z.string().regex(/^[0-9a-f]{64}$/),
      scopes: z.array(z.enum(API_KEY_SCOPES)).min(1),
      test: z.literal(true).optional(),
      issuedAt: isoTime,
    }),
    (v1) => ({ ...v1, scopes: v1.scopes ?? [...SCOPES_BEFORE_ADMIN] }),
    // Every key administered the account before the admin scope existed; a key that held every scope
    // of that time keeps doing so, any narrower key does not.
    (v2) => ({ ...v2, scopes: SCOPES_BEFORE_ADMIN.every((scope) => (v2.scopes as string[]).includes(scope)) ? [...(v2.scopes as string[]), 'admin'] : v2.scopes }),
  ),
  ApiKeyRevoked: eventSchema(z.object({ keyId: id, revokedAt: isoTime })),
  CreditsRenewed: eventSchema(z.object({ credits, periodStartedAt: isoTime, nextRenewalAt: isoDate })),
  WebhookSecretIssued: eventSchema(z.object({ orgId: id, secret: sealedSecret, issuedAt: isoTime }), plainSecretV1),
  WebhookSecretRotated: eventSchema(z.object({ orgId: id, secret: sealedSecret, rotatedAt: isoTime }), plainSecretV1),
  FontUploaded: eventSchema(
    z.object({
      fontId: id,
      family: z.string().min(1),
      originalName: z.string(),
      weight: z.number().int().min(1).max(1000),
      style: z.enum(FONT_STYLES),
      format: z.enum(FONT_FORMATS),
      subsets: z.array(z.string().min(1)),
      category: z.string().min(1),
      bytes,
      storageKey: id,
      uploadedAt: isoTime,
    }),
  ),
  FontDeleted: eventSchema(z.object({ fontId: id, bytes, deletedAt: isoTime })),
  UploadStored: eventSchema(
    z.object({ uploadId: id, contentType: z.enum(IMAGE_UPLOAD_TYPES), bytes, width: pixels, height: pixels, storageKey: id, storedAt: isoTime }),
  ),
  UploadDeleted: eventSchema(z.object({ uploadId: id, bytes, deletedAt: isoTime })),
  AccountSettingsChanged: eventSchema(z.object({ apiKeyInQuery: z.boolean(), changedAt: isoTime })),
  // URL-signing secrets were sealed from their first version.
  UrlSigningKeyCreated: eventSchema(z.object({ keyId: id, secret: sealedSecret, createdAt: isoTime })),
  UrlSigningKeyRotated: eventSchema(z.object({ keyId: id, secret: sealedSecret, rotatedAt: isoTime })),
  UrlSigningKeyRevoked: eventSchema(z.object({ keyId: id, revokedAt: isoTime })),
};
