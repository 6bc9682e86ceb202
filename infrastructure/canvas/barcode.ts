import bwipjs from 'bwip-js';
import { validationError } from '../../domain/shared/errors.js';
import { LINEAR_FORMATS, type BarcodeFormat } from '../../domain/templates/components/barcode-symbols.js';
import type { PropsOf } from '../../domain/templates/components/component-properties.js';
import { escapeHtml } from './markup.js';

/** bwip-js's names (BWIPP's) of the formats the canvas offers. */
const SYMBOLOGY: Record<BarcodeFormat, string> = {
  code128: 'code128',
  ean13: 'ean13',
  upca: 'upca',
  code39: 'code39',
  itf14: 'itf14',
  datamatrix: 'datamatrix',
  pdf417: 'pdf417',
};

/**
 * Light margins around the symbol in its own units (a module of a linear code is one unit): at
 * least the quiet zone each symbology asks for (10 modules for Code 128, 11 and 7 for EAN-13, 2
 * modules of a matrix code), so scanners find its edges whatever surrounds the component.
 */
const QUIET_ZONE = { linear: { x: 12, y: 2 }, matrix: { x: 4, y: 4 } } as const;

/** The colour bwip-js is told to draw in, and then replaced: its own options take hex colours only, the canvas any CSS colour. */
const DRAWN = '000000';

const CENTRED_TEXT: ReadonlySet<BarcodeFormat> = new Set(['code128', 'code39', 'itf14']);

/** bwip-js takes bar heights in millimetres and draws them in points (a unit at scale 1), rounded. */
const UNITS_PER_MM = 72 / 25.4;
/** The bar height of the first drawing, which tells the symbol's width and the height of its text. */
const PROBE_HEIGHT_MM = 10;
const MIN_HEIGHT_MM = 1;

type Box = { readonly width: number; readonly height: number };

interface Drawn {
  readonly width: number;
  readonly height: number;
  readonly content: string;
}

const draw = (format: BarcodeFormat, value: string, showText: boolean, height?: number): Drawn => {
  const linear = LINEAR_FORMATS.has(format);
  let svg: string;
  try {
    svg = bwipjs.toSVG({
      bcid: SYMBOLOGY[format],
      text: value,
      scale: 1,
      barcolor: DRAWN,
      textcolor: DRAWN,
      bordercolor: DRAWN,
      // Code 128 holds ISO 8859-1: each character is one byte, not the UTF-8 bytes of its code point.
      ...(format === 'code128' ? { binarytext: true } : {}),
      ...(linear ? { includetext: showText } : {}),
      // EAN-13 and UPC-A place their digits by their standards; the others' text is centred under the bars, Code 39's without its start and stop stars.
      ...(CENTRED_TEXT.has(format) ? { textxalign: 'center' as const } : {}),
      ...(format === 'code39' ? { hidestars: true } : {}),
      ...(height === undefined ? {} : { height }),
    });
  } catch (error) {
    // The domain's rules (barcode-symbols.ts) refuse what bwip-js cannot encode before a render is accepted; this is the backstop.
    throw validationError(`A ${format} barcode cannot hold this value`, [`${format}: ${(error as Error).message.replace(/^bwipp\.\w+#\d+: /, '')}`]);
  }
  const match = /^<svg viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)" xmlns="http:\/\/www\.w3\.org\/2000\/svg">([\s\S]*)<\/svg>\s*$/.exec(svg);
  if (!match) throw new Error('bwip-js drew an SVG of an unexpected shape');
  return { width: Number(match[1]), height: Number(match[2]), content: (match[3] ?? '').replaceAll(`"#${DRAWN}"`, '"currentColor"') };
};

/** Units of bwip-js's drawing (at scale 1) per module, the narrowest bar or cell. */
const UNITS_PER_MODULE: Record<BarcodeFormat, number> = { code128: 1, ean13: 1, upca: 1, code39: 1, itf14: 1, datamatrix: 2, pdf417: 1 };

/** The least share of the box a symbol in whole-pixel modules must still fill; below it, it fills the box. */
const WHOLE_PIXELS_FILL = 0.75;

/**
 * Pixels per unit: a whole number of pixels per module where that still fills most of the box, so
 * every bar and cell is equally wide on the page (scaled freely, edges fall between pixels and the
 * narrow/wide ratios that linear codes are read by vary along the symbol); `fit` otherwise.
 */
const pixelsPerUnit = (format: BarcodeFormat, fit: number): number => {
  const perModule = fit * UNITS_PER_MODULE[format];
  const whole = Math.floor(perModule);
  return (whole >= 1 && whole / perModule >= WHOLE_PIXELS_FILL ? whole : perModule) / UNITS_PER_MODULE[format];
};

interface Placed {
  readonly drawn: Drawn;
  readonly zone: { readonly x: number; readonly y: number };
  readonly scale: number;
}

/**
 * A linear code as wide as the box (in whole-pixel modules, see pixelsPerUnit) and as tall: the
 * bars take the height that the text under them and the quiet zones leave. A first drawing tells
 * the symbol's width and what its height is besides the bars (within the unit bwip-js rounds to).
 */
const placeLinear = (format: BarcodeFormat, value: string, showText: boolean, box: Box): Placed => {
  const zone = QUIET_ZONE.linear;
  const probe = draw(format, value, showText, PROBE_HEIGHT_MM);
  const scale = pixelsPerUnit(format, box.width / (probe.width + 2 * zone.x));
  const besidesBars = probe.height - PROBE_HEIGHT_MM * UNITS_PER_MM;
  const height = Math.max(MIN_HEIGHT_MM, (box.height / scale - 2 * zone.y - besidesBars) / UNITS_PER_MM);
  return { drawn: draw(format, value, showText, height), zone, scale };
};

/** A matrix code as large as the box holds (in whole-pixel modules, see pixelsPerUnit). */
const placeMatrix = (format: BarcodeFormat, value: string, box: Box): Placed => {
  const zone = QUIET_ZONE.matrix;
  const drawn = draw(format, value, false);
  const fit = Math.min(box.width / (drawn.width + 2 * zone.x), box.height / (drawn.height + 2 * zone.y));
  return { drawn, zone, scale: pixelsPerUnit(format, fit) };
};

/**
 * The barcode, drawn by bwip-js as SVG paths (its text too, in its own OCR-B outlines), centred on
 * the background colour that fills the component's box. Its offsets are whole pixels too, so whole
 * pixel modules keep their edges on pixel edges.
 */
export const barcodeSvg = ({ format, value, color, background, showText }: PropsOf<'BARCODE'>, box: Box): string => {
  const backdrop = `<div style="width:100%;height:100%;position:relative;overflow:hidden;background:${escapeHtml(background)}">`;
  if (!(box.width > 0 && box.height > 0)) return `${backdrop}</div>`;
  const { drawn, zone, scale } = LINEAR_FORMATS.has(format) ? placeLinear(format, value, showText, box) : placeMatrix(format, value, box);
  const width = (drawn.width + 2 * zone.x) * scale;
  const height = (drawn.height + 2 * zone.y) * scale;
  const position = { left: Math.floor((box.width - width) / 2), top: Math.floor((box.height - height) / 2) };
  return [
    backdrop,
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${-zone.x} ${-zone.y} ${drawn.width + 2 * zone.x} ${drawn.height + 2 * zone.y}" width="${width}" height="${height}"`,
    ` style="position:absolute;left:${position.left}px;top:${position.top}px;color:${escapeHtml(color)}">`,
    drawn.content,
    '</svg></div>',
  ].join('');
};
