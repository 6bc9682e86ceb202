import type { AnimatedValues, ComponentAnimation, ComponentGeometry, Easing, Tween } from './component-document.js';

/*
 * Where an animated component is at a given instant of a video. A pure function of the document
 * and the time, so every frame is exact whatever the machine's load: the page evaluates this same
 * code (bundled into it) when the video renderer seeks a frame.
 */

export interface ComponentState {
  readonly x: number;
  readonly y: number;
  readonly scale: number;
  readonly rotation: number;
  readonly opacity: number;
  /** False before the enter animation starts and after the exit animation ends. */
  readonly visible: boolean;
}

export type AnimatedComponent = Pick<ComponentGeometry, 'x' | 'y' | 'rotation' | 'opacity'> & {
  readonly animation?: ComponentAnimation;
};

type Values = Required<AnimatedValues>;
const CHANNELS = ['x', 'y', 'scale', 'rotation', 'opacity'] as const satisfies readonly (keyof Values)[];

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** CSS's cubic-bezier() timing function, solved for x by bisection (monotonic, deterministic). */
const cubicBezier = (x1: number, y1: number, x2: number, y2: number) => {
  const at = (t: number, p1: number, p2: number) => 3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t;
  return (progress: number): number => {
    if (progress <= 0 || progress >= 1) return progress <= 0 ? 0 : 1;
    let low = 0;
    let high = 1;
    for (let i = 0; i < 40; i++) {
      const middle = (low + high) / 2;
      if (at(middle, x1, x2) < progress) low = middle;
      else high = middle;
    }
    return at((low + high) / 2, y1, y2);
  };
};

/** The curves of the CSS keywords of the same names. */
const CURVES: Record<Easing, (progress: number) => number> = {
  linear: (progress) => progress,
  ease: cubicBezier(0.25, 0.1, 0.25, 1),
  'ease-in': cubicBezier(0.42, 0, 1, 1),
  'ease-out': cubicBezier(0, 0, 0.58, 1),
  'ease-in-out': cubicBezier(0.42, 0, 0.58, 1),
};

/** Eased fraction of a tween done at `time`: 0 before it starts, 1 from its end on. */
export const tweenProgress = (tween: Tween, time: number): number => {
  if (time < tween.offset) return 0;
  if (tween.duration <= 0 || time >= tween.offset + tween.duration) return 1;
  const progress = clamp01((time - tween.offset) / tween.duration);
  return CURVES[tween.easing ?? 'linear'](progress);
};

const mix = (from: number, to: number, fraction: number) => (fraction === 1 ? to : from + (to - from) * fraction);

const mapChannels = (value: (channel: keyof Values) => number): Values =>
  Object.fromEntries(CHANNELS.map((channel) => [channel, value(channel)])) as unknown as Values;

type Keyframe = Tween & { readonly to: AnimatedValues };

/**
 * One channel under keyframes sorted by offset: each keyframe moves the channel from wherever it
 * is when the keyframe starts, so a keyframe that starts before the previous one ended cuts it off.
 */
const keyframedValue = (base: number, keyframes: readonly Keyframe[], channel: keyof Values, time: number): number => {
  let value = base;
  for (const [index, keyframe] of keyframes.entries()) {
    if (time < keyframe.offset) break;
    const target = keyframe.to[channel];
    if (target === undefined) continue;
    const from = keyframedValue(base, keyframes.slice(0, index), channel, keyframe.offset);
    value = mix(from, target, tweenProgress(keyframe, time));
  }
  return value;
};

export const componentStateAt = (component: AnimatedComponent, time: number): ComponentState => {
  const base: Values = { x: component.x, y: component.y, scale: 1, rotation: component.rotation ?? 0, opacity: component.opacity ?? 1 };
  const animation = component.animation;
  if (!animation) return { ...base, visible: true };

  const keyframes = [...(animation.keyframes ?? [])].sort((a, b) => a.offset - b.offset);
  let state = mapChannels((channel) => keyframedValue(base[channel], keyframes, channel, time));
  let visible = true;
  const { enter, exit } = animation;
  if (enter) {
    const resting = state;
    const fraction = tweenProgress(enter, time);
    state = mapChannels((channel) => mix(enter.from[channel] ?? resting[channel], resting[channel], fraction));
    if (time < enter.offset) visible = false;
  }
  if (exit && time >= exit.offset) {
    const leaving = state;
    const fraction = tweenProgress(exit, time);
    state = mapChannels((channel) => mix(leaving[channel], exit.to[channel] ?? leaving[channel], fraction));
    if (time >= exit.offset + exit.duration) visible = false;
  }
  return { ...state, scale: Math.max(0, state.scale), opacity: clamp01(state.opacity), visible };
};

/**
 * The frame of a VIDEO component's source shown at `time`, when the source was decoded at the
 * video's own `fps` into `frames` frames starting at its first: the nearest decoded frame, so
 * video frame i shows source frame i, and a source shorter than the video holds its last frame
 * (a still that stays is less surprising than a loop that restarts mid-sentence).
 */
export const clipFrameAt = (time: number, fps: number, frames: number): number =>
  Math.min(Math.max(0, frames - 1), Math.max(0, Math.round((time * fps) / 1000)));
