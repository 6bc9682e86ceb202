import QRCode from 'qrcode';
import { escapeHtml } from './markup.js';

/** Light modules around the symbol, as the QR specification asks, so scanners find its edges. */
const QUIET_ZONE = 4;

/**
 * An SVG of the QR code, drawn from the library's module matrix: one path of dark runs on a
 * background rectangle, so any CSS colour works (the library's own SVG takes hex colours only).
 */
export const qrCodeSvg = (value: string, color: string, background: string): string => {
  const { modules } = QRCode.create(value, { errorCorrectionLevel: 'M' });
  const runs: string[] = [];
  for (let row = 0; row < modules.size; row++) {
    let start = -1;
    for (let column = 0; column <= modules.size; column++) {
      const dark = column < modules.size && modules.data[row * modules.size + column] === 1;
      if (dark && start < 0) start = column;
      if (!dark && start >= 0) {
        runs.push(`M${start} ${row}h${column - start}v1h${start - column}z`);
        start = -1;
      }
    }
  }
  const extent = modules.size + 2 * QUIET_ZONE;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${-QUIET_ZONE} ${-QUIET_ZONE} ${extent} ${extent}" width="100%" height="100%" shape-rendering="crispEdges">`,
    `<rect x="${-QUIET_ZONE}" y="${-QUIET_ZONE}" width="${extent}" height="${extent}" fill="${escapeHtml(background)}"/>`,
    `<path fill="${escapeHtml(color)}" d="${runs.join('')}"/>`,
    '</svg>',
  ].join('');
};
