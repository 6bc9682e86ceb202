import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../domain/shared/decider.js';
import type { TemplateCreated, TemplateEvent } from '../../domain/templates/template-events.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import { deciderSpec } from '../support/decider-spec.js';
import { templateCreated } from '../support/template-events.js';

const spec = deciderSpec(templateDecider);
const now = '2026-01-02T03:04:05.000Z';
const later = '2026-01-03T00:00:00.000Z';

const created = (overrides: Partial<TemplateCreated['data']> = {}): TemplateCreated => templateCreated({ templateId: 't1', orgId: 'org-a', createdAt: now, ...overrides });

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

describe('template versions', () => {
  const content = (html: string, replacedAt = later) =>
    ({ type: 'TemplateContentReplaced', data: { templateId: 't1', html, css: '', sampleData: {}, mergeFields: [], replacedAt } }) satisfies TemplateEvent;
  const renamed = (name: string) => ({ type: 'TemplateUpdated', data: { templateId: 't1', changes: { name }, updatedAt: later } }) satisfies TemplateEvent;
  const published = (version: number) => ({ type: 'TemplatePublished', data: { templateId: 't1', version, publishedAt: later } }) satisfies TemplateEvent;
  const publish = (version?: number, orgId = 'org-a') => ({
    type: 'PublishTemplateVersion' as const,
    data: { templateId: 't1', orgId, ...(version !== undefined ? { version } : {}), now: later },
  });
  const restore = (version: number, orgId = 'org-a') => ({ type: 'RestoreTemplateVersion' as const, data: { templateId: 't1', orgId, version, now: later } });
  const v1Settings = { name: 'Card', width: 1200, height: 630, outputFormat: 'jpeg' as const, quality: 80, scaleFactor: 1, tags: [], recordDuration: null, fps: null };

  it('numbers versions by folding: creation is 1, each change one more, publishing none', () => {
    const state = foldEvents(templateDecider, [created(), content('<p>a</p>'), published(2), renamed('Other'), content('<p>b</p>')]);
    expect(state.status === 'active' && state.versions.map(({ version, changed }) => ({ version, changed }))).toEqual([
      { version: 1, changed: [] },
      { version: 2, changed: ['content'] },
      { version: 3, changed: ['settings'] },
      { version: 4, changed: ['content'] },
    ]);
    expect(state.status === 'active' && state.publishedVersion).toBe(2);
  });

  it('publishes a version, or the latest when none is named', () => {
    spec.given([created(), content('<p>a</p>')]).when(publish(1)).then([published(1)]);
    spec.given([created(), content('<p>a</p>')]).when(publish()).then([published(2)]);
  });

  it('publishing the published version again records nothing', () =>
    spec.given([created(), content('<p>a</p>'), published(2)]).when(publish(2)).thenNothingHappens());

  it('refuses to publish a version the template does not have (the request names it: 400)', () => {
    spec.given([created(), content('<p>a</p>')]).when(publish(3)).thenThrows('validation', /no version 3/);
    spec.given([created()]).when(publish(0)).thenThrows('validation');
  });

  it('restores an old version whole as a new one', () =>
    spec
      .given([created(), content('<p>a</p>'), renamed('Other')])
      .when(restore(1))
      .then([
        {
          type: 'TemplateVersionRestored',
          data: { templateId: 't1', restoredFrom: 1, settings: v1Settings, content: null, components: null, properties: [], restoredAt: later },
        },
      ]));

  it('a restored version equals the old one and says which parts it changed', () => {
    const events = [created(), content('<p>a</p>'), content('<p>b</p>')];
    const [restored] = templateDecider.decide(restore(2), foldEvents(templateDecider, events));
    const state = foldEvents(templateDecider, [...events, restored as TemplateEvent]);
    if (state.status !== 'active') throw new Error('expected an active template');
    expect(state.content).toEqual(state.versions[1]?.content);
    expect(state.versions[3]).toMatchObject({ version: 4, restoredFrom: 2, changed: ['content'] });
  });

  it('restoring what the template already is records nothing', () =>
    spec.given([created(), content('<p>a</p>'), content('<p>a</p>', now)]).when(restore(2)).thenNothingHappens());

  it('a version the template never had is not found (the path names it: 404)', () =>
    spec.given([created(), content('<p>a</p>')]).when(restore(5)).thenThrows('not_found', /version 5/));

  it("another organization's template, or a deleted one, has no versions to publish or restore", () => {
    spec.given([created(), content('<p>a</p>')]).when(publish(1, 'org-b')).thenThrows('not_found');
    spec.given([created(), content('<p>a</p>')]).when(restore(1, 'org-b')).thenThrows('not_found');
    spec.given([created(), { type: 'TemplateDeleted', data: { templateId: 't1', deletedAt: later } }]).when(restore(1)).thenThrows('not_found');
  });
});
