import { describe, it } from 'vitest';
import type { TemplateCreated, TemplateEvent } from '../../domain/templates/template-events.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(templateDecider);
const now = '2026-01-02T03:04:05.000Z';
const later = '2026-01-03T00:00:00.000Z';

const created = (overrides: Partial<TemplateCreated['data']> = {}): TemplateCreated => ({
  type: 'TemplateCreated',
  data: {
    templateId: 't1',
    orgId: 'org-a',
    name: 'Card',
    editor: 'html-editor',
    width: 1200,
    height: 630,
    outputFormat: 'jpeg',
    quality: 80,
    scaleFactor: 1,
    recordDuration: null,
    fps: null,
    tags: [],
    createdBy: 'API',
    sourceTemplateId: null,
    createdAt: now,
    ...overrides,
  },
});

const create = (data: Record<string, unknown> = {}) => ({
  type: 'CreateTemplate' as const,
  data: { templateId: 't1', orgId: 'org-a', name: 'Card', editor: 'html-editor' as const, width: 1200, height: 630, createdBy: 'API', now, ...data },
});

describe('CreateTemplate', () => {
  it('creates an html-editor template with the spec defaults', () =>
    spec.given([]).when(create()).then([created()]));

  it('gives canvas-html templates a record duration of 5000 ms and 30 fps', () =>
    spec.given([]).when(create({ editor: 'canvas-html' })).then([created({ editor: 'canvas-html', recordDuration: 5000, fps: 30 })]));

  it('keeps explicit settings and de-duplicates tags', () =>
    spec
      .given([])
      .when(create({ editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 12000, fps: 24, tags: ['a', 'b', 'a'], quality: 55, scaleFactor: 2 }))
      .then([created({ editor: 'canvas-html', outputFormat: 'mp4', recordDuration: 12000, fps: 24, tags: ['a', 'b'], quality: 55, scaleFactor: 2 })]));

  it('refuses video formats for editors that cannot animate', () =>
    spec.given([]).when(create({ editor: 'canvas-editor', outputFormat: 'webm' })).thenThrows('validation', /canvas-html/));

  it('refuses video settings on a template that cannot be a video', () =>
    spec.given([]).when(create({ fps: 25 })).thenThrows('validation', /recordDuration and fps/));

  it('refuses to create the same template twice', () =>
    spec.given([created()]).when(create()).thenThrows('conflict'));
});

describe('UpdateTemplate', () => {
  const update = (changes: Record<string, unknown>, orgId = 'org-a') => ({
    type: 'UpdateTemplate' as const,
    data: { templateId: 't1', orgId, changes, now: later },
  });

  it('records only the supplied fields that change, tags replacing the set', () =>
    spec
      .given([created({ tags: ['x'] })])
      .when(update({ name: 'Card', width: 800, tags: ['y', 'z'] }))
      .then([{ type: 'TemplateUpdated', data: { templateId: 't1', changes: { width: 800, tags: ['y', 'z'] }, updatedAt: later } }]));

  it('records nothing when nothing changes', () =>
    spec.given([created()]).when(update({ name: 'Card' })).thenNothingHappens());

  it('hides templates of other organizations', () =>
    spec.given([created()]).when(update({ name: 'X' }, 'org-b')).thenThrows('not_found'));

  it('refuses a video format for an html-editor template', () =>
    spec.given([created()]).when(update({ outputFormat: 'mp4' })).thenThrows('validation'));

  it('cannot update a deleted template', () =>
    spec
      .given([created(), { type: 'TemplateDeleted', data: { templateId: 't1', deletedAt: later } }])
      .when(update({ name: 'X' }))
      .thenThrows('not_found'));

  it('cannot update a template that does not exist', () => spec.given([]).when(update({ name: 'X' })).thenThrows('not_found'));
});

describe('ReplaceTemplateContent', () => {
  const replace = (orgId = 'org-a') => ({
    type: 'ReplaceTemplateContent' as const,
    data: { templateId: 't1', orgId, html: '<p>{{name}}</p>', css: 'p{}', sampleData: { name: 'Ada' }, mergeFields: ['name'], now: later },
  });

  it('records the content with its merge fields', () =>
    spec.given([created()]).when(replace()).then([
      {
        type: 'TemplateContentReplaced',
        data: { templateId: 't1', html: '<p>{{name}}</p>', css: 'p{}', sampleData: { name: 'Ada' }, mergeFields: ['name'], replacedAt: later },
      },
    ]));

  it('is a 400 for canvas templates', () =>
    spec.given([created({ editor: 'canvas-editor' })]).when(replace()).thenThrows('validation', /html-editor/));

  it('hides templates of other organizations', () => spec.given([created()]).when(replace('org-b')).thenThrows('not_found'));
});

describe('DeleteTemplate', () => {
  const remove = { type: 'DeleteTemplate' as const, data: { templateId: 't1', orgId: 'org-a', now: later } };
  const deleted: TemplateEvent = { type: 'TemplateDeleted', data: { templateId: 't1', deletedAt: later } };

  it('soft-deletes an active template', () => spec.given([created()]).when(remove).then([deleted]));
  it('a second delete finds nothing', () => spec.given([created(), deleted]).when(remove).thenThrows('not_found'));
});
