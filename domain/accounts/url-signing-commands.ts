/** The secrets arrive sealed: the domain compares them, never opens them. */

export interface CreateUrlSigningKey {
  readonly type: 'CreateUrlSigningKey';
  readonly data: { readonly orgId: string; readonly keyId: string; readonly sealedSecret: string; readonly now: string };
}

export interface RotateUrlSigningKey {
  readonly type: 'RotateUrlSigningKey';
  readonly data: { readonly orgId: string; readonly keyId: string; readonly sealedSecret: string; readonly now: string };
}

export interface RevokeUrlSigningKey {
  readonly type: 'RevokeUrlSigningKey';
  readonly data: { readonly orgId: string; readonly keyId: string; readonly now: string };
}

export type UrlSigningCommand = CreateUrlSigningKey | RotateUrlSigningKey | RevokeUrlSigningKey;
