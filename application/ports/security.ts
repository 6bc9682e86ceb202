/** API keys are random secrets; only their digest is ever stored or compared. */
export interface ApiKeyCodec {
  generate(): { readonly key: string; readonly prefix: string };
  hash(key: string): string;
}

/** Finds the merge fields (`{{name}}`) a template's HTML uses. */
export interface MergeFieldScanner {
  scan(html: string): string[];
}
