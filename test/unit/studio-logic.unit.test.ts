import { describe, expect, it } from 'vitest';
import { formatValue, freshId, hexColor, parseValue } from '../../studio/src/component-values.js';
import { sameOriginLink } from '../../studio/src/file-links.js';
import { dragged, nudged } from '../../studio/src/geometry.js';
import { sampleDataFor } from '../../studio/src/sample-data.js';
import { animationOf, nextStep, stepsOf, withValue } from '../../studio/src/animation.js';
import { parseTags } from '../../studio/src/tags.js';
import { createSerialSave } from '../../studio/src/serial-save.js';

describe('dragging on the studio preview', () => {
  const box = { x: 10, y: 20, width: 100, height: 50 };

  it('moves by the pointer distance in template pixels, whatever the preview scale', () => {
    expect(dragged(box, 'move', 120, -30, 2)).toEqual({ x: 70, y: 5, width: 100, height: 50 });
    expect(dragged(box, 'move', 25, 25, 0.5)).toEqual({ x: 60, y: 70, width: 100, height: 50 });
  });

  it('resizes from the bottom-right corner and never below one pixel', () => {
    expect(dragged(box, 'resize', 40, 10, 1)).toEqual({ x: 10, y: 20, width: 140, height: 60 });
    expect(dragged(box, 'resize', -500, -500, 1)).toEqual({ x: 10, y: 20, width: 1, height: 1 });
  });

  it('nudges with arrow keys, ten pixels with Shift, and ignores other keys', () => {
    expect(nudged(box, 'move', 'ArrowLeft', false)).toEqual({ ...box, x: 9 });
    expect(nudged(box, 'resize', 'ArrowDown', true)).toEqual({ ...box, height: 60 });
    expect(nudged(box, 'move', 'Enter', false)).toBeNull();
  });
});

describe('property values in the component form', () => {
  it('types values by the input type the service lists', () => {
    expect(parseValue('number', '42.5')).toEqual({ ok: true, value: 42.5 });
    expect(parseValue('number', '')).toEqual({ ok: false, message: 'must be a number' });
    expect(parseValue('boolean', 'true')).toEqual({ ok: true, value: true });
    expect(parseValue('json', '["a", 1]')).toEqual({ ok: true, value: ['a', 1] });
    expect(parseValue('json', '["a", ')).toEqual({ ok: false, message: 'must be JSON' });
    expect(parseValue('color', '#ff0000')).toEqual({ ok: true, value: '#ff0000' });
  });

  it('shows stored values as text', () => {
    expect(formatValue(undefined)).toBe('');
    expect(formatValue('Hi')).toBe('Hi');
    expect(formatValue([1, 2])).toBe('[1,2]');
  });

  it('names a new component after its type with the first free number, without dots', () => {
    expect(freshId('QR_CODE', ['qr-code1'])).toBe('qr-code2');
    expect(freshId('TEXT', [])).toBe('text1');
  });

  it('gives the colour picker the #rrggbb of hex colours, alpha dropped', () => {
    expect(hexColor('#FA0')).toBe('#ffaa00');
    expect(hexColor('#fa08')).toBe('#ffaa00');
    expect(hexColor('#12ab34')).toBe('#12ab34');
    expect(hexColor(' #12ab3480 ')).toBe('#12ab34');
    expect(hexColor('red')).toBeNull();
    expect(hexColor('#12ab3')).toBeNull();
  });
});

describe('sample data', () => {
  it('keeps typed values for fields still there, names new ones after themselves, drops the rest', () => {
    expect(sampleDataFor(['title', 'name'], { title: 'Hello', gone: 'x' })).toEqual({ title: 'Hello', name: 'name' });
  });
});

describe('links and tags', () => {
  it('follows a result link on the origin the studio was opened from', () => {
    expect(sameOriginLink('http://127.0.0.1:3000/files/a/b.png?expires=1&signature=x', 'http://localhost:3000')).toBe('/files/a/b.png?expires=1&signature=x');
  });

  it('reads comma-separated tags without blanks or repeats', () => {
    expect(parseTags(' social, launch,,social ,')).toEqual(['social', 'launch']);
  });
});

describe('saving from the studio', () => {
  it('writes one value at a time, in the order asked, skipping what the service already holds', async () => {
    const order: string[] = [];
    let release: (() => void) | undefined;
    const saver = createSerialSave<string>(async (value) => {
      order.push(`start ${value}`);
      if (value === 'slow') await new Promise<void>((resolve) => (release = resolve));
      order.push(`end ${value}`);
    });
    saver.markSaved('loaded');
    const skipped = saver.save('loaded');
    const slow = saver.save('slow');
    const fast = saver.save('fast');
    await skipped;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['start slow']);
    release?.();
    await Promise.all([slow, fast]);
    expect(order).toEqual(['start slow', 'end slow', 'start fast', 'end fast']);
  });

  it('goes on after a failed write, which its caller sees', async () => {
    const written: string[] = [];
    const saver = createSerialSave<string>(async (value) => {
      if (value === 'bad') throw new Error('400');
      written.push(value);
    });
    await expect(saver.save('bad')).rejects.toThrow('400');
    await saver.save('good');
    await saver.save('good');
    expect(written).toEqual(['good']);
  });
});

describe('the animation form', () => {
  it('writes entry, keyframes and exit as the API takes them, leaving empty values out', () => {
    const entry = { ...nextStep([]), duration: 800, easing: 'ease-out' as const, values: withValue({}, 'x', '-200') };
    const keyframe = { ...nextStep([entry]), values: withValue(withValue({}, 'scale', '1.5'), 'opacity', '') };
    expect(keyframe.offset).toBe(800);
    const animation = animationOf(entry, [keyframe], null);
    expect(animation).toEqual({
      enter: { offset: 0, duration: 800, easing: 'ease-out', from: { x: -200 } },
      keyframes: [{ offset: 800, duration: 500, easing: 'ease-in-out', to: { scale: 1.5 } }],
    });
    expect(animationOf(stepsOf(animation).enter, stepsOf(animation).keyframes, stepsOf(animation).exit)).toEqual(animation);
  });

  it('drops the animation when nothing animates', () => {
    expect(animationOf(null, [], null)).toBeUndefined();
  });
});
