/** What fitting did to one element's text (a canvas TEXT component, or an html element marked `data-fit`). */
export interface TextFit {
  /** The font size drawn, in CSS pixels. */
  readonly fontSize: number;
  /** Lines the text took. */
  readonly lines: number;
  /** Part of the text did not fit even at the smallest size allowed, and was cut (with an ellipsis unless clipped). */
  readonly truncated: boolean;
}

/** Fitted elements by component id (canvas) or element id (html). */
export type TextFits = Readonly<Record<string, TextFit>>;

/** The smallest size fitting shrinks a text to when its template does not say. */
export const DEFAULT_MIN_FONT_SIZE = 8;
