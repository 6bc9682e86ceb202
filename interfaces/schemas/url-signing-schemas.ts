import { z } from 'zod';
import { IMAGE_URL_EXTENSIONS } from '../../application/url-signing/image-url.js';
import { SIGNATURE_PARAMETERS } from '../../application/url-signing/image-url-signature.js';

/*
 * Signed image URLs and the keys that sign them, and the organization settings: extensions of this
 * service (the spec's GET /img puts the API key in the URL; these let an organization publish
 * image URLs without it).
 */

export const SigningKeyIdParam = z.object({ identifier: z.string().min(1).max(200) });

export const SigningKey = z
  .object({
    identifier: z.string(),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
    rotatedAt: z.string().nullable().meta({ description: 'When the current secret replaced the previous one; null when never rotated' }),
    revokedAt: z.string().nullable().meta({ description: "null while the key signs; URLs signed with a revoked key answer 403" }),
  })
  .meta({ id: 'UrlSigningKey' });

export const NewSigningSecret = z
  .object({
    identifier: z.string().meta({ description: 'The keyId signed URLs name' }),
    secret: z.string().meta({ description: 'The HMAC-SHA256 key, shown only in this answer; the service keeps it encrypted' }),
    createdAt: z.string().meta({ description: 'When this secret was made (ISO 8601 UTC)' }),
  })
  .meta({ id: 'UrlSigningSecret' });

/** Values travel in a query string: scalars only, as text. */
const queryValue = z.union([z.string().max(10_000), z.number(), z.boolean()]).transform(String);

export const SignedUrlBody = z
  .object({
    template: z.string().min(1).max(200),
    data: z.record(z.string().min(1).max(200), queryValue).optional().meta({ description: 'Template values by name (merge field, or <componentId>.<property>); numbers and booleans are sent as text' }),
    expires: z.number().int().positive().max(99_999_999_999).meta({ description: 'Unix seconds after which the URL answers 403; must be in the future and at most 366 days away' }),
    format: z.enum(IMAGE_URL_EXTENSIONS).default('jpg'),
    keyId: z.string().min(1).max(200).optional().meta({ description: "The signing key; the organization's newest active key when absent" }),
  })
  .strict()
  .meta({ id: 'SignedUrlRequest' });

export const SignedUrlResponse = z
  .object({
    url: z.string().meta({ description: 'Absolute GET /img URL, signed; carries no API key' }),
    expiresAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'SignedUrl' });

export const Settings = z
  .object({ apiKeyInQuery: z.boolean().meta({ description: 'Whether GET /img takes the API key from its query string (apiKey=); true by default, as the spec has it' }) })
  .meta({ id: 'AccountSettings' });

export const PatchSettingsBody = z
  .object({ apiKeyInQuery: z.boolean().optional().meta({ description: 'false: GET /img with apiKey in the query answers 403; signed URLs and the x-api-key header still work' }) })
  .strict()
  .meta({ id: 'AccountSettingsChange' });

/** GET /img/{templateId}.{jpg|png|webp}. */
export const ImagePath = z
  .string()
  .regex(new RegExp(`^.+\\.(${IMAGE_URL_EXTENSIONS.join('|')})$`), `expected /img/{templateId}.jpg (or .png, .webp)`)
  .transform((file) => {
    const dot = file.lastIndexOf('.');
    return { templateId: file.slice(0, dot), extension: file.slice(dot + 1) as (typeof IMAGE_URL_EXTENSIONS)[number] };
  });

const isSignatureParameter = (name: string): boolean => (SIGNATURE_PARAMETERS as readonly string[]).includes(name);

/**
 * GET /img's query in the signed form, as the decoded pairs of the raw query string (not the
 * extended parser's objects): the pairs signed are exactly the pairs rendered. A signature part
 * missing or repeated is null, for the verification to refuse with 403 like any other bad signature.
 */
export const SignedImageQuery = z
  .array(z.tuple([z.string(), z.string()]))
  .max(1000)
  .superRefine((pairs, ctx) => {
    if (pairs.some(([name]) => name === 'apiKey')) ctx.addIssue({ code: 'custom', message: 'a signed URL carries no API key: drop apiKey', path: ['apiKey'] });
  })
  .transform((pairs) => {
    const once = (name: string): string | null => {
      const found = pairs.filter(([each]) => each === name);
      return found.length === 1 ? (found[0]?.[1] ?? null) : null;
    };
    return {
      values: pairs.filter(([name]) => !isSignatureParameter(name)),
      expires: once('expires'),
      keyId: once('keyId'),
      signature: once('signature'),
    };
  });

/** Whether a GET /img query is in the signed form: any signature part makes it one. */
export const isSignedImageQuery = (pairs: readonly (readonly [string, string])[]): boolean => pairs.some(([name]) => isSignatureParameter(name));
