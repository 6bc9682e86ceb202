import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { parseComponentDocument } from '../../interfaces/schemas/component-schemas.js';

const problemsOf = (input: unknown): readonly string[] => {
  try {
    parseComponentDocument(input);
  } catch (error) {
    if (error instanceof DomainError) return error.details;
  }
  throw new Error('expected the document to be refused');
};

const box = { x: 10, y: 20, width: 100, height: 50 };

describe('parseComponentDocument', () => {
  it('accepts every component type with geometry, properties and animation', () => {
    const document = {
      background: '#102030',
      components: [
        { id: 'r', type: 'RECTANGLE', ...box, fill: '#ff0000', radius: 4, rotation: 15, opacity: 0.5, zIndex: 3, locked: true },
        {
          id: 't',
          type: 'TEXT',
          ...box,
          text: 'Hi',
          fontFamily: 'DejaVu Sans',
          fontSize: 20,
          fontWeight: 700,
          align: 'center',
          autoFit: true,
          animation: {
            enter: { offset: 0, duration: 500, easing: 'ease-out', from: { x: -100, opacity: 0 } },
            keyframes: [{ offset: 1000, duration: 500, to: { scale: 1.5, rotation: 90 } }],
            exit: { offset: 4000, duration: 500, to: { opacity: 0 } },
          },
        },
        { id: 'q', type: 'QR_CODE', ...box, value: 'https://example.com', color: '#000', background: '#fff' },
        { id: 'c', type: 'CHART', ...box, chartType: 'pie', labels: ['a'], datasets: [{ label: 'x', data: [1], color: ['#f00'] }] },
        { id: 'g', type: 'SVG_GROUP', ...box, paths: [{ d: 'M0 0L10 10', fill: 'red' }], viewBox: '0 0 10 10' },
        { id: 'p', type: 'SVG_PATH', ...box, d: 'M0 0L10 10Z' },
        { id: 's', type: 'RATING', ...box, value: 3.5, max: 5 },
        { id: 'h', type: 'HTML', ...box, html: '<b>x</b>' },
        { id: 'i', type: 'IMAGE', ...box, src: 'https://example.com/a.png', objectFit: 'contain' },
        { id: 'v', type: 'VIDEO', ...box, src: 'https://example.com/a.mp4' },
        { id: 'o', type: 'CIRCLE', ...box, stroke: 'black', strokeWidth: 2 },
      ],
    };
    expect(parseComponentDocument(document)).toEqual(document);
  });

  it('names the component by index and id, and the property, in every problem', () => {
    expect(
      problemsOf({
        background: 'red;}',
        components: [
          { id: 'ok', type: 'RECTANGLE', ...box },
          { id: 'b', type: 'NOPE', ...box },
          { id: 'title', type: 'TEXT', ...box, fontSize: 'huge', bogus: 1, animation: { enter: { offset: -1, duration: 5, from: { opacity: 2 } } } },
          { id: 'c.d', type: 'CIRCLE', ...box, x: 'left' },
        ],
        extra: true,
      }),
    ).toEqual([
      'background: must be a colour: #rgb, #rrggbb, rgb(), rgba(), hsl() or a colour name',
      "components[1] (id 'b').type: must be one of RECTANGLE, CIRCLE, TEXT, IMAGE, VIDEO, QR_CODE, BARCODE, CHART, SVG_GROUP, SVG_PATH, RATING, HTML",
      "components[2] (id 'title').animation.enter.offset: must be a whole number from 0 to 30000",
      "components[2] (id 'title').animation.enter.from.opacity: must be a number from 0 to 1",
      "components[2] (id 'title').fontSize: must be a number from 1 to 1000",
      "components[2] (id 'title').bogus: unknown field",
      "components[3] (id 'c.d').id: must not contain a dot (property keys are <componentId>.<property>)",
      "components[3] (id 'c.d').x: must be a number from -100000 to 100000",
      'extra: unknown field',
    ]);
  });

  it('refuses a body that is not a document', () => {
    expect(problemsOf(null)).toEqual(['body: Invalid input: expected object, received null']);
    expect(problemsOf({ components: 'x' })).toEqual(['components: Invalid input: expected array, received string']);
  });
});
