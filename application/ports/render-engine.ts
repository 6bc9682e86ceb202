import type { PdfStandard } from '../../domain/renders/pdf-standards.js';
import type { TextFits } from '../../domain/renders/text-fit.js';
import type { VideoClip } from '../../domain/templates/components/video-clips.js';
import type { OutputFormat, VideoFormat } from '../../domain/templates/template-settings.js';

/** A self-contained HTML page of a known size, ready for the browser. */
export interface RenderDocument {
  readonly html: string;
  readonly width: number;
  readonly height: number;
  readonly scaleFactor: number;
  /** Milliseconds to wait after the page loaded, for late scripts and fonts. */
  readonly waitTime: number;
  /**
   * The sources of the page's VIDEO components (canvas templates). A video renderer decodes them and
   * shows each frame's instant of them; other renders let the page's own <video> show its first frame.
   */
  readonly videoClips?: readonly VideoClip[];
  /**
   * A document (html-editor PDFs): its content flows onto as many PDF pages as it needs, each the
   * document's width x height unless its CSS says otherwise (`@page`). Otherwise the page is one
   * design of exactly its size, and a PDF of it has one page.
   */
  readonly paged?: boolean;
  /** What a paged PDF is called when the document has no title of its own. */
  readonly title?: string;
}

export interface RenderedFile {
  readonly content: Buffer;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
  /** What fitting did to the text of elements that fit their boxes, when the document had any. */
  readonly fit?: TextFits;
}

export interface CaptureOptions {
  /** The organization the render is for: its pages are never shared with another. */
  readonly tenant: string;
  readonly format: Exclude<OutputFormat, VideoFormat>;
  readonly quality: number;
  readonly crop: { readonly width: number; readonly height: number } | null;
  /** PDFs only: the archival standard the file must meet. */
  readonly pdfStandard?: PdfStandard;
  /**
   * Nobody waits for this render on an open connection (a batch's row, a render told by webhook):
   * it gets a slot after the renders a client waits for.
   */
  readonly background?: boolean;
}

export interface RenderEngine {
  render(document: RenderDocument, options: CaptureOptions): Promise<RenderedFile>;
}

/** Fills a template's HTML with request data (merge fields are HTML-escaped; triple braces are raw). */
export interface TemplateMerger {
  merge(html: string, data: Record<string, unknown>): string;
}
