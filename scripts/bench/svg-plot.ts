/**
 * A small line chart as SVG text: a few series over time, with axes, ticks and a legend; enough to
 * see at a glance whether memory levels off or keeps rising, and small enough to commit.
 */

export interface Series {
  readonly name: string;
  readonly colour: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** A vertical line, for example where the warm-up ends. */
  readonly marker?: { readonly x: number; readonly label: string };
}

const WIDTH = 900;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 180, top: 40, bottom: 50 };

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Round tick steps (1, 2, 5 x 10^n) giving about `count` ticks over `span`. */
const tickStep = (span: number, count: number) => {
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((factor) => factor * magnitude >= raw) ?? 10;
  return step * magnitude;
};

export const lineChart = (series: readonly Series[], { title, xLabel, yLabel, marker }: ChartOptions): string => {
  const all = series.flatMap((line) => line.points);
  const maxX = Math.max(1, ...all.map((point) => point.x));
  const maxY = Math.max(1, ...all.map((point) => point.y)) * 1.05;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + (x / maxX) * plotWidth;
  const py = (y: number) => MARGIN.top + plotHeight - (y / maxY) * plotHeight;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="22" text-anchor="middle" font-size="15">${escape(title)}</text>`,
  ];
  const yStep = tickStep(maxY, 6);
  for (let y = 0; y <= maxY; y += yStep) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${py(y)}" y2="${py(y)}" stroke="#eee"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${py(y) + 4}" text-anchor="end">${y.toFixed(0)}</text>`);
  }
  const xStep = tickStep(maxX, 8);
  for (let x = 0; x <= maxX; x += xStep) {
    parts.push(`<text x="${px(x)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${x.toFixed(0)}</text>`);
  }
  parts.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888"/>`);
  parts.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escape(xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`);
  if (marker) {
    parts.push(`<line x1="${px(marker.x)}" x2="${px(marker.x)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#999" stroke-dasharray="4 4"/>`);
    parts.push(`<text x="${px(marker.x) + 4}" y="${MARGIN.top + 14}" fill="#666">${escape(marker.label)}</text>`);
  }
  series.forEach(({ name, colour, points }, index) => {
    if (points.length > 0) {
      const path = points.map(({ x, y }) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
      parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path}"/>`);
    }
    const legendY = MARGIN.top + 10 + index * 20;
    parts.push(`<line x1="${WIDTH - MARGIN.right + 16}" x2="${WIDTH - MARGIN.right + 40}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="3"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right + 46}" y="${legendY + 4}">${escape(name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
};
