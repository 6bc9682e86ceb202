/*
 * Whether a template's document renders the same with scripting off: no script of any kind, nothing
 * that sets the document's own policies, no nested browsing context, and nothing whose rendering
 * depends on whether scripting is on. Such a document is written into a frame the browser runs no
 * script in (template-document.ts), which can then be reused from render to render: a realm no script
 * ever ran in has nothing to carry over.
 *
 * With scripting off the browser draws some markup differently: `<noscript>` and a canvas's fallback
 * content show, `loading="lazy"` loads at once, autofocus is ignored, `@media (scripting)` turns, and
 * a `<video>` in such a frame showed its first frame dimmed (found by video-clips.int). Those count as
 * scripting too.
 *
 * Errs one way only. A document wrongly judged scripted renders as before, in a fresh realm; one
 * wrongly judged script-free would render without its script, never with a script running where it
 * should not (the frame's sandbox forbids them, whatever this says). So anything that merely looks
 * like scripting counts as scripting: a word "onward=" in a paragraph costs a fresh frame, no more.
 */
const SCRIPTING = [
  // Script elements, in HTML and in SVG.
  /<script\b/i,
  // Event handler attributes (onload, onerror, ...), however the attribute is separated from the one before.
  /[\s/"']on[a-z]+\s*=/i,
  // Policies and refreshes a document sets for itself: a content security policy would outlive a rewrite.
  /http-equiv/i,
  // Documents inside the document (a javascript: URL runs only in one of these, or on a click), and plugins.
  /<(?:iframe|frame|frameset|object|embed|portal|fencedframe)\b/i,
  // Markup drawn differently when scripting is off.
  /<(?:noscript|canvas|video|audio|marquee)\b/i,
  /\bautofocus\b/i,
  /\bloading\s*=\s*["']?lazy/i,
  /\bscripting\b/i,
];

/** True when nothing in `html` could run a script, set the document's policies or draw differently with scripting off. */
export const isScriptFree = (html: string): boolean => !SCRIPTING.some((pattern) => pattern.test(html));
