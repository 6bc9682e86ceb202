import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { propsOf } from '../../domain/templates/components/component-properties.js';
import { documentProblems } from '../../domain/templates/components/document-problems.js';
import { resolveValues } from '../../domain/templates/components/resolve-values.js';
import { deriveProperties } from '../../domain/templates/components/template-properties.js';

const box = { x: 0, y: 0, width: 100, height: 50 };

const document: ComponentDocument = {
  components: [
    { id: 'bg', type: 'RECTANGLE', ...box, fill: '#ff0000' },
    { id: 'title', type: 'TEXT', ...box, text: 'Hello', fontSize: 40 },
    { id: 'logo', type: 'RECTANGLE', ...box, locked: true },
    { id: 'sales', type: 'CHART', ...box, labels: ['a', 'b'], datasets: [{ data: [1, 2] }] },
  ],
};

const thrown = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
  }
  throw new Error('expected a DomainError');
};

describe('deriveProperties', () => {
  it('lists every property of every component with its key, input type, stored or default value and lock', () => {
    const properties = deriveProperties(document);
    expect(properties.filter((property) => property.componentId === 'bg').map((property) => property.key)).toEqual([
      'bg.fill',
      'bg.stroke',
      'bg.strokeWidth',
      'bg.radius',
      'bg.hidden',
    ]);
    expect(properties.find((property) => property.key === 'bg.fill')).toEqual({
      key: 'bg.fill',
      type: 'color',
      defaultValue: '#ff0000',
      componentId: 'bg',
      componentType: 'RECTANGLE',
      property: 'fill',
      locked: false,
    });
    expect(properties.find((property) => property.key === 'title.fontSize')).toMatchObject({ type: 'number', defaultValue: '40' });
    expect(properties.find((property) => property.key === 'title.fontFamily')).toMatchObject({ type: 'font', defaultValue: 'DejaVu Sans' });
    expect(properties.find((property) => property.key === 'sales.labels')).toMatchObject({ type: 'json', defaultValue: '["a","b"]' });
    expect(properties.find((property) => property.key === 'logo.fill')).toMatchObject({ locked: true, defaultValue: '#cccccc' });
  });
});

describe('resolveValues', () => {
  it('takes stored values, defaults and data overrides', () => {
    const values = resolveValues(document, { 'title.text': 'Bye', 'bg.fill': 'blue' });
    expect(values).toMatchObject({ 'title.text': 'Bye', 'title.fontSize': 40, 'title.color': '#000000', 'bg.fill': 'blue' });
    expect(propsOf(document.components[1] as ComponentDocument['components'][number] & { type: 'TEXT' }, values)).toMatchObject({
      text: 'Bye',
      fontSize: 40,
      align: 'left',
    });
  });

  it('accepts the text forms of numbers, booleans and lists that query strings carry', () => {
    const values = resolveValues(document, {
      'title.fontSize': '12.5',
      'title.autoFit': 'true',
      'title.fontWeight': 'bold',
      'sales.labels': '["x","y","z"]',
      'sales.datasets': JSON.stringify([{ label: 'n', data: [3, 4, 5], color: ['#111', '#222', '#333'] }]),
    });
    expect(values).toMatchObject({
      'title.fontSize': 12.5,
      'title.autoFit': true,
      'title.fontWeight': 700,
      'sales.labels': ['x', 'y', 'z'],
      'sales.datasets': [{ label: 'n', data: [3, 4, 5] }],
    });
  });

  it('keeps the stored value for null', () => {
    expect(resolveValues(document, { 'bg.fill': null })['bg.fill']).toBe('#ff0000');
  });

  it('refuses unknown keys, naming each and the known ones', () => {
    const error = thrown(() => resolveValues(document, { 'nope.text': 'x', 'title.size': 3, 'title.text': 'ok' }));
    expect(error.code).toBe('validation');
    expect(error.message).toBe('Unknown data keys: nope.text, title.size');
    expect(error.details).toEqual([
      expect.stringMatching(/^data\.nope\.text: no such property \(properties are bg\.fill, /),
      expect.stringMatching(/^data\.title\.size: no such property/),
    ]);
  });

  it('refuses values that break the property rules and changes to locked components', () => {
    const error = thrown(() => resolveValues(document, { 'title.fontSize': 'big', 'bg.fill': 'red;}body{x:y', 'logo.fill': '#000' }));
    expect(error.details).toEqual([
      'data.bg.fill: must be a colour: #rgb, #rrggbb, rgb(), rgba(), hsl() or a colour name',
      'data.title.fontSize: must be a number from 1 to 1000',
      "data.logo.fill: component 'logo' is locked",
    ]);
  });

  it('refuses any key for a document without components', () => {
    expect(thrown(() => resolveValues({ components: [] }, { a: 1 })).details).toEqual(['data.a: no such property (the template has no properties)']);
  });
});

describe('documentProblems', () => {
  it('accepts a valid document', () => {
    expect(documentProblems(document, 'canvas-editor')).toEqual([]);
  });

  it('names the component and property of every problem', () => {
    const problems = documentProblems(
      {
        background: 'url(x)',
        components: [
          { id: 'a.b', type: 'TEXT', ...box, fontSize: 0 },
          { id: 'title', type: 'QR_CODE', ...box, value: '' },
          { id: 'title', type: 'RECTANGLE', ...box, text: 'x', animation: { enter: { offset: 0, duration: 100, from: { opacity: 0 } } } },
          { id: 'path', type: 'SVG_PATH', ...box, d: 'M0 0 L10 10"/><script>' },
          { id: 'chart', type: 'CHART', ...box, datasets: [{ data: [1, 'x'] }] },
        ],
      },
      'canvas-editor',
    );
    expect(problems).toEqual([
      'background: must be a colour',
      "components[0] (id 'a.b').id: must not contain a dot (property keys are <componentId>.<property>)",
      "components[0] (id 'a.b').fontSize: must be a number from 1 to 1000",
      "components[1] (id 'title').value: must be text of 1 to 2000 characters",
      "components[2] (id 'title').id: is used by an earlier component; ids must be unique",
      "components[2] (id 'title').animation: only canvas-html templates animate",
      "components[2] (id 'title').text: is not a property of RECTANGLE (it has fill, stroke, strokeWidth, radius, hidden)",
      "components[3] (id 'path').d: must be SVG path data (commands, numbers, commas and spaces)",
      "components[4] (id 'chart').datasets: [0] data must be a list of at most 1000 numbers",
    ]);
  });

  it('allows animation in canvas-html templates', () => {
    const animated: ComponentDocument = {
      components: [{ id: 'a', type: 'CIRCLE', ...box, animation: { enter: { offset: 0, duration: 100, from: { opacity: 0 } } } }],
    };
    expect(documentProblems(animated, 'canvas-html')).toEqual([]);
  });

  it('accepts only http(s) and data URLs for media', () => {
    const withSrc = (src: string) => documentProblems({ components: [{ id: 'i', type: 'IMAGE', ...box, src }] }, 'canvas-editor');
    expect(withSrc('https://example.com/a.png')).toEqual([]);
    expect(withSrc('data:image/png;base64,AAAA')).toEqual([]);
    expect(withSrc('')).toEqual([]);
    expect(withSrc('javascript:alert(1)')).toEqual(["components[0] (id 'i').src: must be an http(s) or data:image URL"]);
    expect(withSrc('file:///etc/passwd')).toHaveLength(1);
  });
});
