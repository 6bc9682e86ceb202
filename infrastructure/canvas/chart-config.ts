import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PropsOf } from '../../domain/templates/components/component-properties.js';

/** Colours of datasets (bar, line) or slices (pie, doughnut) that do not name their own. */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** Fixed whatever the capture's scale, so the same chart always has the same pixels. */
const DEVICE_PIXEL_RATIO = 2;

const paletteColor = (index: number) => PALETTE[index % PALETTE.length] as string;

/** A Chart.js configuration that draws at once (no animation) and ignores the mouse. */
export const chartConfig = ({ chartType, labels, datasets, showLegend }: PropsOf<'CHART'>) => {
  const perPoint = chartType === 'pie' || chartType === 'doughnut';
  return {
    type: chartType,
    data: {
      labels,
      datasets: datasets.map((dataset, index) => {
        const color = dataset.color ?? (perPoint ? dataset.data.map((_, point) => paletteColor(point)) : paletteColor(index));
        return { label: dataset.label ?? '', data: dataset.data, backgroundColor: color, borderColor: color };
      }),
    },
    options: {
      animation: false,
      responsive: false,
      maintainAspectRatio: false,
      devicePixelRatio: DEVICE_PIXEL_RATIO,
      events: [],
      plugins: { legend: { display: showLegend } },
    },
  };
};

let chartLibrary: Promise<string> | undefined;

/** Chart.js's browser build, read once and inlined into pages that draw charts. */
export const chartLibrarySource = (): Promise<string> => {
  chartLibrary ??= readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.js'), 'utf8');
  return chartLibrary;
};
