/** Fresh secrets for keys that sign image URLs, unguessable. */
export interface UrlSigningSecretGenerator {
  generate(): string;
}
