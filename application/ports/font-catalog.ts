/** A font family as the API spec (section 2, Font) describes it. */
export interface FontDto {
  readonly originalName: string;
  readonly family: string;
  /** Google Fonts style names: `regular`, `italic`, `700`, `700italic`, ... */
  readonly variants: readonly string[];
  readonly defaultVariant: string;
  readonly subsets: readonly string[];
  /** serif, sans-serif, monospace, display or handwriting. */
  readonly category: string;
  readonly source: 'GOOGLE' | 'CUSTOM';
  /** Bytes of the family's font files. */
  readonly size: number;
  readonly createdAt: string;
}

/** The fonts renders can use. */
export interface FontCatalog {
  list(): Promise<FontDto[]>;
}
