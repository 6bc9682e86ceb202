import type { UrlSigningKeyView } from '../ports/read-models.js';

/** A key as listings show it: never its secret, which is shown once, when it is made. */
export interface SigningKeyDto {
  readonly identifier: string;
  readonly createdAt: string;
  readonly rotatedAt: string | null;
  readonly revokedAt: string | null;
}

/** The answer to creating or rotating a key: the only time its secret is shown. */
export interface NewSigningSecretDto {
  readonly identifier: string;
  readonly secret: string;
  /** When this secret was made: the key's creation, or its rotation. */
  readonly createdAt: string;
}

export const toSigningKeyDto = (key: UrlSigningKeyView): SigningKeyDto => ({
  identifier: key.id,
  createdAt: key.createdAt.toISOString(),
  rotatedAt: key.rotatedAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});
