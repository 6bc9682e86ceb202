/// <reference lib="dom" />
import { DEFAULT_MIN_FONT_SIZE, type TextFit } from '../../../domain/renders/text-fit.js';
import type { FitReport } from './fit-report.js';

/*
 * Runs in the browser, bundled by text-fit-script.ts: fits the text of every element marked
 * `data-fit` into its box, once the document and its fonts have loaded, and says what it did.
 *
 * What fits: the ink of every line of the text (as the canvas measures its glyphs, past their
 * advances and past the font's ascent and descent) lies inside the element's content box with a
 * pixel to spare on each side, no word is broken (unless one word alone is wider than
 * the box at the smallest size allowed), and there are no more lines than `data-max-lines`. The size
 * is searched on a fixed grid, so the same text always gets the same size, and a longer text never
 * gets a larger one than a shorter text does.
 */

/** Elements fitted in one document, at most: each costs a few layouts, and the rest keep their size. */
const MAX_FITTED = 500;
/** Sizes are tried in quarter pixels. */
const GRID = 4;
/** What is appended to a text cut short. */
const ELLIPSIS = '\u2026';
/** Line boxes whose tops are this close are one line (runs of different fonts on a line differ a little). */
const SAME_LINE_PX = 2;
/**
 * Room kept between the ink and each side of the box, beyond what the ink needs: glyphs are placed
 * and antialiased on whole pixels, so ink that ends exactly on the box's edge still shades its
 * outermost row or column.
 */
const EDGE_ROOM_PX = 1;
/** The size ink is measured at; it scales with the size drawn. */
const MEASURED_AT_PX = 100;
/** Distinct words measured for the ink at the lines' sides, at most (the graphemes are all measured). */
const MAX_MEASURED_WORDS = 2_000;
/** Pieces whose side ink a document's fitting remembers, at most. */
const MAX_REMEMBERED = 20_000;
/** Layout positions are multiples of this (Chromium's LayoutUnit): a line this close to the box's side is inside it. */
const LAYOUT_UNIT_PX = 1 / 64;

interface Overhang {
  /** How far ink reaches above the first line's box and below the last one's, in em (negative: it stays that far inside). */
  readonly above: number;
  readonly below: number;
  /** How far ink can reach past the left and the right end of a line's advance, in em (never negative). */
  readonly left: number;
  readonly right: number;
}

interface Sides {
  readonly left: number;
  readonly right: number;
}

/**
 * The canvas a document's fitting measures ink on, and the side ink of the pieces it measured, by
 * font: the texts of a document share their fonts and many of their words.
 */
interface InkRuler {
  readonly context: CanvasRenderingContext2D | null;
  readonly sides: Map<string, Sides>;
}

const inkRulerOf = (document: Document): InkRuler => ({ context: document.createElement('canvas').getContext('2d'), sides: new Map() });

/**
 * A line's box is its font's ascent and descent, and from the first glyph's advance to the last
 * one's; ink can reach past them (stacked Arabic marks, vowel signs above Devanagari letters and
 * before or after their consonant, italic and swash overhangs, glyphs taken from a fallback font
 * taller than the element's own), and the box would cut it, or stay well inside them. The canvas
 * measures the ink of the text as drawn, fallback fonts and shaping included, against the same
 * font's ascent and descent and against the advances: the ink, not the font's lines, is kept inside
 * the box.
 *
 * Above and below, the whole text is measured: its tallest glyph may be on the first or last line.
 * At the sides, what matters is the glyph that starts or ends a line, and a line can start or end at
 * any word (whole words) or grapheme (words broken): every distinct word and grapheme is measured
 * on its own, and the largest overhang on each side is kept as room at that side of every line
 * (reserveSideRoom). A word's own measure holds its contextual forms (Arabic joining, Devanagari
 * conjuncts) at its ends.
 */
const overhangOf = (element: HTMLElement, texts: readonly Text[], ruler: InkRuler): Overhang => {
  const { context } = ruler;
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  if (!context || !style) return { above: 0, below: 0, left: 0, right: 0 };
  const font = `${style.fontStyle} ${style.fontWeight} ${MEASURED_AT_PX}px ${style.fontFamily}`;
  context.font = font;
  context.textAlign = 'left';
  context.direction = 'ltr';
  const whole = texts.map((text) => text.data).join(' ');
  const metrics = context.measureText(whole);
  const words = [...new Set(whole.split(/\s+/).filter((word) => word !== ''))].slice(0, MAX_MEASURED_WORDS);
  const graphemes = new Set(graphemesOf(texts).flat().filter((grapheme) => grapheme.trim() !== ''));
  let left = 0;
  let right = 0;
  // The ellipsis too: a cut text's last line ends with it.
  for (const piece of [...words, ...graphemes, ELLIPSIS]) {
    const key = `${font}\u0000${piece}`;
    let sides = ruler.sides.get(key);
    if (!sides) {
      const ink = context.measureText(piece);
      // With a left-aligned run (visual order, whatever its direction), actualBoundingBoxLeft is how
      // far the ink reaches left of the advance's start, and actualBoundingBoxRight how far right of it.
      sides = { left: ink.actualBoundingBoxLeft, right: ink.actualBoundingBoxRight - ink.width };
      if (ruler.sides.size < MAX_REMEMBERED) ruler.sides.set(key, sides);
    }
    left = Math.max(left, sides.left);
    right = Math.max(right, sides.right);
  }
  return {
    above: (metrics.actualBoundingBoxAscent - metrics.fontBoundingBoxAscent) / MEASURED_AT_PX,
    below: (metrics.actualBoundingBoxDescent - metrics.fontBoundingBoxDescent) / MEASURED_AT_PX,
    left: left / MEASURED_AT_PX,
    right: right / MEASURED_AT_PX,
  };
};

type Mode = 'shrink' | 'fill' | 'none';
type Overflow = 'ellipsis' | 'clip' | 'error';

interface Settings {
  readonly mode: Mode;
  readonly minSize: number;
  readonly maxSize: number;
  readonly maxLines: number;
  readonly overflow: Overflow;
}

const numberAttribute = (element: Element, name: string): number | undefined => {
  const value = Number.parseFloat(element.getAttribute(name) ?? '');
  return Number.isFinite(value) && value > 0 ? value : undefined;
};

const settingsOf = (element: HTMLElement, initialSize: number): Settings => {
  const attribute = element.getAttribute('data-fit');
  const mode: Mode = attribute === 'fill' ? 'fill' : attribute === 'none' ? 'none' : 'shrink';
  const overflowAttribute = element.getAttribute('data-overflow');
  const overflow: Overflow = overflowAttribute === 'clip' || overflowAttribute === 'error' ? overflowAttribute : 'ellipsis';
  const minimum = numberAttribute(element, 'data-min-font-size') ?? DEFAULT_MIN_FONT_SIZE;
  // Shrinking never grows a text that fits at its own size; without fitting, the size is the element's.
  const minSize = mode === 'none' ? initialSize : mode === 'shrink' ? Math.min(minimum, initialSize) : minimum;
  // Filling grows the text up to the box's height: no line can be taller than that.
  const maxSize = mode === 'fill' ? Math.max(initialSize, element.clientHeight) : initialSize;
  return { mode, minSize: Math.max(1, minSize), maxSize: Math.max(1, maxSize), maxLines: Math.floor(numberAttribute(element, 'data-max-lines') ?? 0), overflow };
};

const textNodesOf = (element: Element): Text[] => {
  const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  return nodes;
};

/** The element's content box: inside its borders and padding. */
const contentBoxOf = (element: HTMLElement) => {
  const rect = element.getBoundingClientRect();
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  const px = (value: string | undefined) => Number.parseFloat(value ?? '0') || 0;
  return {
    left: rect.left + px(style?.borderLeftWidth) + px(style?.paddingLeft),
    right: rect.right - px(style?.borderRightWidth) - px(style?.paddingRight),
    top: rect.top + px(style?.borderTopWidth) + px(style?.paddingTop),
    bottom: rect.bottom - px(style?.borderBottomWidth) - px(style?.paddingBottom),
  };
};

interface Layout {
  readonly inside: boolean;
  readonly lines: number;
}

/** Where the element's text lies now: inside its box or not, and on how many lines. */
const layoutOf = (element: HTMLElement, texts: readonly Text[], size: number, overhang: Overhang): Layout => {
  const box = contentBoxOf(element);
  const top = box.top + overhang.above * size + EDGE_ROOM_PX;
  const bottom = box.bottom - overhang.below * size - EDGE_ROOM_PX;
  // The room the ink needs at the sides is padding (reserveSideRoom): lines wrap inside it, and only a word
  // wider than the rest of the box can reach past it.
  const left = box.left - LAYOUT_UNIT_PX;
  const right = box.right + LAYOUT_UNIT_PX;
  const range = element.ownerDocument.createRange();
  const lineTops: number[] = [];
  let inside = true;
  for (const text of texts) {
    range.selectNodeContents(text);
    for (const rect of range.getClientRects()) {
      if (rect.width === 0 && rect.height === 0) continue;
      if (rect.left < left || rect.right > right || rect.top < top || rect.bottom > bottom) inside = false;
      if (!lineTops.some((top) => Math.abs(top - rect.top) < SAME_LINE_PX)) lineTops.push(rect.top);
    }
  }
  return { inside, lines: lineTops.length };
};

/**
 * Spaces that end a wrapped line hang past the box in pre-wrap text and would measure as overflow,
 * though nothing is drawn there: fitted text keeps its line breaks but collapses its spaces.
 */
const collapseHangingSpaces = (element: HTMLElement) => {
  const whiteSpace = element.ownerDocument.defaultView?.getComputedStyle(element).whiteSpace ?? '';
  if (whiteSpace.includes('pre-wrap') || whiteSpace.includes('break-spaces')) element.style.setProperty('white-space', 'pre-line', 'important');
};

const setFontSize = (element: HTMLElement, size: number) => element.style.setProperty('font-size', `${size}px`, 'important');

/**
 * The room the ink needs at the sides of the lines, kept as padding inside the element: a check alone
 * would not do, since the browser fills lines to the content box's width whatever the ink does, and
 * at a given size (the minimum, where a text is cut) no line could ever keep its room. The padding
 * comes inside the box the template drew: a border-box element's padding already does; a content-box
 * one (CSS's default) keeps the outer width it has now, made border-box at that width. Returns what
 * sets the room for a size.
 */
const reserveSideRoom = (element: HTMLElement, overhang: Overhang): ((size: number) => void) => {
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  const px = (value: string | undefined) => Number.parseFloat(value ?? '0') || 0;
  const padding = { left: px(style?.paddingLeft), right: px(style?.paddingRight) };
  if (style?.boxSizing !== 'border-box') {
    const width = `${element.getBoundingClientRect().width}px`;
    element.style.setProperty('box-sizing', 'border-box', 'important');
    for (const property of ['width', 'min-width', 'max-width']) element.style.setProperty(property, width, 'important');
  }
  return (size: number) => {
    element.style.setProperty('padding-left', `${padding.left + overhang.left * size + EDGE_ROOM_PX}px`, 'important');
    element.style.setProperty('padding-right', `${padding.right + overhang.right * size + EDGE_ROOM_PX}px`, 'important');
  };
};

const setBreaking = (element: HTMLElement, anywhere: boolean) => {
  element.style.setProperty('overflow-wrap', anywhere ? 'anywhere' : 'normal', 'important');
  element.style.setProperty('word-break', 'normal', 'important');
};

/** The largest size on the grid, from `min` to `max`, at which `fits` holds; undefined when none does. */
const largestFitting = (min: number, max: number, fits: (size: number) => boolean): number | undefined => {
  let low = Math.ceil(min * GRID);
  let high = Math.floor(max * GRID);
  if (high < low) high = low;
  if (fits(high / GRID)) return high / GRID;
  if (!fits(low / GRID)) return undefined;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle / GRID)) low = middle;
    else high = middle;
  }
  return low / GRID;
};

/** Grapheme clusters of the text nodes, so that a cut never splits a letter from its marks or an emoji. */
const graphemesOf = (texts: readonly Text[]) => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return texts.map((text) => [...segmenter.segment(text.data)].map((segment) => segment.segment));
};

/** Keeps the first `kept` graphemes of the text, then the ellipsis when asked for, and blanks the rest. */
const keepFirst = (texts: readonly Text[], graphemes: readonly string[][], kept: number, ellipsis: boolean) => {
  let left = kept;
  let cut = false;
  texts.forEach((text, index) => {
    const parts = graphemes[index] ?? [];
    if (cut) {
      text.data = '';
      return;
    }
    // The cut falls in this node when what is left to keep ends in it (or it is the last node).
    if (left < parts.length || index === texts.length - 1) {
      text.data = parts.slice(0, left).join('').trimEnd() + (ellipsis ? ELLIPSIS : '');
      cut = true;
      return;
    }
    text.data = parts.join('');
    left -= parts.length;
  });
};

/** Fits one element; the outcome, or undefined when it cannot fit and must not be cut (`overflow: error`). */
const fitElement = (element: HTMLElement, ruler: InkRuler): TextFit | undefined => {
  const view = element.ownerDocument.defaultView;
  const initialSize = Number.parseFloat(view?.getComputedStyle(element).fontSize ?? '16') || 16;
  const settings = settingsOf(element, initialSize);
  const texts = textNodesOf(element);
  collapseHangingSpaces(element);
  const overhang = overhangOf(element, texts, ruler);
  const setRoom = reserveSideRoom(element, overhang);
  const setSize = (size: number) => {
    setFontSize(element, size);
    setRoom(size);
  };
  const fitsAt = (size: number) => {
    setSize(size);
    const layout = layoutOf(element, texts, size, overhang);
    return layout.inside && (settings.maxLines === 0 || layout.lines <= settings.maxLines);
  };
  const done = (size: number, truncated: boolean): TextFit => {
    setSize(size);
    return { fontSize: size, lines: layoutOf(element, texts, size, overhang).lines, truncated };
  };

  // Whole words first; a word is broken only when it alone is wider than the box at the smallest size.
  setBreaking(element, false);
  const whole = largestFitting(settings.minSize, settings.maxSize, fitsAt);
  if (whole !== undefined) return done(whole, false);
  setBreaking(element, true);
  const broken = largestFitting(settings.minSize, settings.maxSize, fitsAt);
  if (broken !== undefined) return done(broken, false);
  if (settings.overflow === 'error') return undefined;

  // Even the smallest size does not hold it all: as much as fits, cut at a grapheme, then the ellipsis.
  const graphemes = graphemesOf(texts);
  const total = graphemes.reduce((sum, parts) => sum + parts.length, 0);
  const ellipsis = settings.overflow === 'ellipsis';
  const keeps = (kept: number) => {
    keepFirst(texts, graphemes, kept, ellipsis);
    return fitsAt(settings.minSize);
  };
  let low = 0;
  let high = total;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (keeps(middle)) low = middle;
    else high = middle;
  }
  keepFirst(texts, graphemes, low, ellipsis);
  return done(settings.minSize, true);
};

/** Transforms of the element and its ancestors, lifted while it is measured: a rotated box's bounding rectangle is not its box. */
const liftTransforms = (element: HTMLElement): (() => void) => {
  const lifted: [HTMLElement, string, string][] = [];
  const view = element.ownerDocument.defaultView;
  for (let current: HTMLElement | null = element; current; current = current.parentElement) {
    if (view?.getComputedStyle(current).transform === 'none') continue;
    lifted.push([current, current.style.getPropertyValue('transform'), current.style.getPropertyPriority('transform')]);
    current.style.setProperty('transform', 'none', 'important');
  }
  return () => {
    for (const [current, value, priority] of lifted) current.style.setProperty('transform', value, priority);
  };
};

/** The name an element's outcome goes by: its `data-fit-id`, else its id, else its place among fitted elements. */
const nameOf = (element: HTMLElement, index: number) => element.getAttribute('data-fit-id') || element.id || `fit-${index + 1}`;

/** Fits every `[data-fit]` element of the document. */
export const fitText = (document: Document): FitReport => {
  const fitted: Record<string, TextFit> = {};
  const unfit: string[] = [];
  const elements = [...document.querySelectorAll<HTMLElement>('[data-fit]')].slice(0, MAX_FITTED);
  const ruler = inkRulerOf(document);
  elements.forEach((element, index) => {
    const restore = liftTransforms(element);
    try {
      const outcome = fitElement(element, ruler);
      if (outcome) fitted[nameOf(element, index)] = outcome;
      else unfit.push(nameOf(element, index));
    } finally {
      restore();
    }
  });
  return { fitted, unfit };
};
