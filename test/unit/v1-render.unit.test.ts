import { describe, expect, it } from 'vitest';
import { toRequestRecord } from '../../application/results/list-v1-requests/request-list-service.js';
import type { ResultView } from '../../application/ports/read-models.js';
import { foldResultView } from '../../application/results/result-view.js';
import { v1ChangesOf, v1RenderInput } from '../../application/renders/v1-render.js';
import { DomainError } from '../../domain/shared/errors.js';
import { renderCompleted, renderRequested } from '../support/render-events.js';

const asArray = { simpleArray: false };
const simple = { simpleArray: true };

const problems = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('validation');
    return [...(error as DomainError).details];
  }
  throw new Error('expected a validation error');
};

describe('v1RenderInput', () => {
  const expected = { 'title.text': 'Hi', 'title.color': '#f00', 'logo.src': 'https://x.example/a.png' };

  it('turns all three change forms into the same v2 data', () => {
    const fromChanges = v1RenderInput(
      { template: 't', changes: [{ id: 'title', text: 'Hi', color: '#f00' }, { id: 'logo', src: 'https://x.example/a.png' }] },
      asArray,
    );
    const fromSimple = v1RenderInput(
      {
        template: 't',
        changes: [
          { id: 'title', property: 'text', value: 'Hi' },
          { id: 'title', property: 'color', value: '#f00' },
          { id: 'logo', property: 'src', value: 'https://x.example/a.png' },
        ],
      },
      simple,
    );
    const fromDictionary = v1RenderInput({ template: 't', changesDictionary: expected }, asArray);
    for (const input of [fromChanges, fromSimple, fromDictionary]) expect(input).toEqual({ template: 't', data: expected });
  });

  it('passes merge fields, file name, webhook and metadata through', () => {
    expect(
      v1RenderInput({ template: 't', mergeFields: { name: 'Ada' }, fileName: 'card', webhookUrl: 'https://h.example/', metadata: { a: 1 } }, asArray),
    ).toEqual({ template: 't', data: { name: 'Ada' }, fileName: 'card', webhookUrl: 'https://h.example/', metadata: { a: 1 } });
  });

  it('says what is wrong with each change', () => {
    expect(problems(() => v1RenderInput({ template: 't', changes: [{ text: 'x' }, { id: 'a.b', text: 'x' }] }, asArray))).toEqual([
      'body.changes.0.id: id must be a non-empty string',
      'body.changes.1.id: id "a.b" must not contain a dot',
    ]);
    expect(problems(() => v1RenderInput({ template: 't', changes: [{ id: 'a', text: 'x' }, { id: 'b', property: 'p', value: 1, x: 2 }] }, simple))).toEqual([
      'body.changes.0.property: must be a non-empty string with USE_SIMPLE_ARRAY',
      'body.changes.1: only id, property and value are allowed with USE_SIMPLE_ARRAY, not x',
    ]);
    expect(problems(() => v1RenderInput({ template: 't', changesDictionary: { title: 'x', '.a': 1, 'b.': 2 } }, asArray))).toHaveLength(3);
  });
});

describe('v1 request records', () => {
  const view = foldResultView([
    renderRequested({
      requestId: 'r1',
      orgId: 'o',
      requestedAt: '2026-03-04T05:06:07.890Z',
      request: { template: 't1', data: { 'title.text': 'Hi', name: 'Ada' } },
      spec: { templateId: 't1', templateName: 'Card', fileName: 'r1.png' },
    }),
    renderCompleted({ requestId: 'r1', completedAt: '2026-03-04T05:06:08.000Z', width: 200, height: 100 }),
  ]) as ResultView;

  it('shows a render as an image with its template and changes', () => {
    expect(toRequestRecord(view, 'https://h/r1.png')).toEqual({
      identifier: 'r1',
      href: 'https://h/r1.png',
      status: 'OK',
      width: 200,
      height: 100,
      type: 'image',
      template: 't1',
      templateName: 'Card',
      changes: [{ id: 'title', text: 'Hi' }],
      createdAt: '2026-03-04T05:06:07',
    });
  });

  it('shows a capture as a screenshot with the URL it executed', () => {
    const capture = { ...view, kind: 'pdf' as const, templateId: '', templateName: '', url: 'https://a.example/', status: 'pending' as const, width: null, height: null };
    expect(toRequestRecord(capture, 'h')).toEqual({
      identifier: 'r1',
      href: 'h',
      status: 'PROCESSING',
      type: 'screenshot',
      executeUrl: 'https://a.example/',
      createdAt: '2026-03-04T05:06:07',
    });
  });

  it('groups component values back into v1 changes', () => {
    expect(v1ChangesOf({ 'a.x': 1, 'a.y': 2, 'b.z': 3, plain: 4 })).toEqual([{ id: 'a', x: 1, y: 2 }, { id: 'b', z: 3 }]);
  });
});
