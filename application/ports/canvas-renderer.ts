import type { ComponentDocument } from '../../domain/templates/components/component-document.js';

/** Turns a canvas template's component document into a page the render engine can capture. */
export interface CanvasRenderer {
  /**
   * A complete HTML page of width x height showing the document with `values` applied (property
   * key -> value, as resolveValues gives them). Deterministic: the same input gives the same page.
   * The page defines `window.__seekFrame(timeMs)`, which synchronously puts every animated
   * component where it is at that instant; it initially shows t = 0. When a video renderer gave the
   * page decoded VIDEO sources, it also shows their frames of that instant, and returns a promise
   * that resolves once they are decoded.
   */
  toHtml(document: ComponentDocument, values: Record<string, unknown>, page: { width: number; height: number }): Promise<string>;
}
