/**
 * Encrypts the secrets the service must read back (webhook signing secrets) before they enter the
 * immutable event log, with a key kept outside it: a copy of the log alone reveals none of them.
 */
export interface SecretSealer {
  /** A self-describing string naming the key that sealed it; sealing the same secret twice gives two strings. */
  seal(plain: string): string;
  /** The secret back; throws when the string was altered or the key it names is not configured. */
  open(sealed: string): string;
}
