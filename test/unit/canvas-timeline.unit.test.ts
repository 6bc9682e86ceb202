import { describe, expect, it } from 'vitest';
import type { ComponentAnimation } from '../../domain/templates/components/component-document.js';
import { componentStateAt, tweenProgress } from '../../domain/templates/components/component-timeline.js';

const at = (animation: ComponentAnimation | undefined, time: number) =>
  componentStateAt({ x: 100, y: 50, rotation: 10, opacity: 0.8, animation }, time);

describe('componentStateAt', () => {
  it('is the geometry at every time without animation', () => {
    expect(at(undefined, 0)).toEqual({ x: 100, y: 50, scale: 1, rotation: 10, opacity: 0.8, visible: true });
    expect(at(undefined, 12_345)).toEqual(at(undefined, 0));
  });

  it('hides the component before enter and moves it from `from` to rest during enter', () => {
    const enter: ComponentAnimation = { enter: { offset: 1000, duration: 500, from: { x: 0, opacity: 0, scale: 0.5 } } };
    expect(at(enter, 0)).toMatchObject({ visible: false, x: 0, opacity: 0 });
    expect(at(enter, 999)).toMatchObject({ visible: false });
    expect(at(enter, 1000)).toMatchObject({ visible: true, x: 0, opacity: 0, scale: 0.5, y: 50 });
    expect(at(enter, 1250)).toMatchObject({ visible: true, x: 50, opacity: 0.4, scale: 0.75 });
    expect(at(enter, 1500)).toEqual({ x: 100, y: 50, scale: 1, rotation: 10, opacity: 0.8, visible: true });
  });

  it('moves to `to` during exit and hides the component once the exit ends', () => {
    const exit: ComponentAnimation = { exit: { offset: 2000, duration: 1000, to: { y: 250, rotation: 0 } } };
    expect(at(exit, 1999)).toMatchObject({ y: 50, rotation: 10, visible: true });
    expect(at(exit, 2500)).toMatchObject({ y: 150, rotation: 5, visible: true });
    expect(at(exit, 2999)).toMatchObject({ visible: true });
    expect(at(exit, 3000)).toMatchObject({ y: 250, rotation: 0, visible: false });
  });

  it('runs keyframes one after another, each from where the channel is', () => {
    const keyframes: ComponentAnimation = {
      keyframes: [
        { offset: 1000, duration: 1000, to: { x: 200 } },
        { offset: 0, duration: 1000, to: { x: 300, scale: 2 } },
      ],
    };
    expect(at(keyframes, 0)).toMatchObject({ x: 100, scale: 1 });
    expect(at(keyframes, 500)).toMatchObject({ x: 200, scale: 1.5 });
    expect(at(keyframes, 1000)).toMatchObject({ x: 300, scale: 2 });
    expect(at(keyframes, 1500)).toMatchObject({ x: 250, scale: 2 });
    expect(at(keyframes, 5000)).toMatchObject({ x: 200, scale: 2 });
  });

  it('lets a keyframe that starts early cut the previous one off where it was', () => {
    const overlapping: ComponentAnimation = {
      keyframes: [
        { offset: 0, duration: 1000, to: { x: 200 } },
        { offset: 500, duration: 500, to: { x: 0 } },
      ],
    };
    expect(at(overlapping, 500)).toMatchObject({ x: 150 });
    expect(at(overlapping, 750)).toMatchObject({ x: 75 });
    expect(at(overlapping, 1000)).toMatchObject({ x: 0 });
  });

  it('enters towards the keyframed state, and clamps opacity and scale', () => {
    const combined: ComponentAnimation = {
      enter: { offset: 0, duration: 1000, from: { opacity: 0 } },
      keyframes: [{ offset: 0, duration: 1000, to: { opacity: 1.5, scale: -1 } }],
    };
    expect(at(combined, 500)).toMatchObject({ opacity: 0.575, scale: 0 });
    expect(at(combined, 1000)).toMatchObject({ opacity: 1, scale: 0 });
  });

  it('is a pure function of time: seeking back gives the same state', () => {
    const animation: ComponentAnimation = { enter: { offset: 0, duration: 300, easing: 'ease-out', from: { y: 0 } } };
    const forward = [0, 100, 200, 300].map((time) => at(animation, time));
    expect([300, 200, 100, 0].map((time) => at(animation, time)).reverse()).toEqual(forward);
  });
});

describe('tweenProgress', () => {
  it('follows the CSS curves of the easing keywords', () => {
    const tween = (easing: 'linear' | 'ease' | 'ease-in' | 'ease-out' | 'ease-in-out') => ({ offset: 0, duration: 1000, easing });
    expect(tweenProgress(tween('linear'), 250)).toBe(0.25);
    expect(tweenProgress(tween('ease-in'), 500)).toBeCloseTo(0.3153, 3);
    expect(tweenProgress(tween('ease-out'), 500)).toBeCloseTo(0.6847, 3);
    expect(tweenProgress(tween('ease-in-out'), 500)).toBeCloseTo(0.5, 6);
    expect(tweenProgress(tween('ease'), 500)).toBeCloseTo(0.8024, 3);
    expect(tweenProgress(tween('ease-in'), 0)).toBe(0);
    expect(tweenProgress(tween('ease-in'), 1000)).toBe(1);
  });

  it('jumps at the offset for a zero duration', () => {
    expect(tweenProgress({ offset: 100, duration: 0 }, 99)).toBe(0);
    expect(tweenProgress({ offset: 100, duration: 0 }, 100)).toBe(1);
  });
});
