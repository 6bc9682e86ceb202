import type { Component, ComponentDocument } from '../../../domain/templates/components/component-document.js';
import { DURATION_MS } from './video-context.js';

/**
 * Motion graphics of the kind the canvas editor makes: a full-page background, shapes sliding,
 * turning and scaling, text fading in, on a timeline that keeps something moving all the time.
 */
export const motionGraphics = ({ width, height }: { width: number; height: number }, durationMs = DURATION_MS): ComponentDocument => {
  const unit = width / 1280;
  /** The 5 s timeline stretched over a longer video, so it keeps moving to the end. */
  const time = (ms: number) => (ms * durationMs) / DURATION_MS;
  return {
    background: '#101828',
    components: [
      { id: 'band', type: 'RECTANGLE', x: 0, y: height * 0.62, width, height: height * 0.38, fill: '#1d2939' },
      {
        id: 'sun',
        type: 'CIRCLE',
        x: width * 0.7,
        y: height * 0.1,
        width: 260 * unit,
        height: 260 * unit,
        fill: '#f79009',
        animation: { keyframes: [{ offset: time(0), duration: time(DURATION_MS), to: { y: height * 0.45, scale: 1.4 }, easing: 'ease-in-out' }] },
      },
      {
        id: 'card',
        type: 'RECTANGLE',
        x: -400 * unit,
        y: height * 0.3,
        width: 360 * unit,
        height: 220 * unit,
        fill: '#7f56d9',
        radius: 24 * unit,
        animation: {
          keyframes: [
            { offset: time(0), duration: time(2_000), to: { x: width * 0.1 }, easing: 'ease-out' },
            { offset: time(2_000), duration: time(3_000), to: { x: width * 0.45, rotation: 360 }, easing: 'ease-in-out' },
          ],
        },
      },
      ...Array.from({ length: 6 }, (_, index): Component => ({
        id: `dot${index}`,
        type: 'CIRCLE',
        x: (80 + index * 190) * unit,
        y: height * 0.8,
        width: 60 * unit,
        height: 60 * unit,
        fill: index % 2 ? '#12b76a' : '#2e90fa',
        animation: {
          keyframes: [
            { offset: time(index * 300), duration: time(1_000), to: { y: height * 0.66 }, easing: 'ease-out' },
            { offset: time(index * 300 + 1_000), duration: time(1_000), to: { y: height * 0.8 }, easing: 'ease-in' },
            { offset: time(index * 300 + 2_000), duration: time(2_500), to: { x: (80 + ((index + 3) % 6) * 190) * unit, scale: 0.5 } },
          ],
        },
      })),
      {
        id: 'title',
        type: 'TEXT',
        x: 80 * unit,
        y: 60 * unit,
        width: 900 * unit,
        height: 120 * unit,
        text: 'Rendering at the speed of a browser',
        fontSize: 56 * unit,
        fontWeight: 700,
        color: '#ffffff',
        animation: { enter: { offset: time(300), duration: time(1_200), from: { opacity: 0, y: 0 }, easing: 'ease-out' } },
      },
      {
        id: 'subtitle',
        type: 'TEXT',
        x: 80 * unit,
        y: 180 * unit,
        width: 900 * unit,
        height: 60 * unit,
        text: 'Every frame on a virtual clock',
        fontSize: 32 * unit,
        color: '#d0d5dd',
        animation: { enter: { offset: time(1_200), duration: time(1_000), from: { opacity: 0, x: 0 } } },
      },
    ],
  };
};
