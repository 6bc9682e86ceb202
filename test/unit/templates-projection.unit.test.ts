import { describe, it } from 'vitest';
import { templateStream, type TemplateCreated } from '../../domain/templates/template-events.js';
import { templatesProjection } from '../../infrastructure/projections/templates-projection.js';
import { TemplateRow } from '../../infrastructure/read-models/entities.js';
import { on, projectionSpec, rows } from '../support/projection-spec.js';

const orgId = 'org-1';
const templateId = 'tpl-1';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const spec = () => projectionSpec(templatesProjection, { orgId });

const created = on(templateStream(templateId), {
  type: 'TemplateCreated',
  data: {
    templateId,
    orgId,
    name: 'Card',
    editor: 'html-editor',
    width: 1200,
    height: 630,
    outputFormat: 'png',
    quality: 80,
    scaleFactor: 1,
    recordDuration: null,
    fps: null,
    tags: ['a'],
    createdBy: 'key-1',
    sourceTemplateId: null,
    createdAt: at(0),
  },
} satisfies TemplateCreated);

const createdRow: TemplateRow = {
  id: templateId,
  orgId,
  name: 'Card',
  editor: 'html-editor',
  width: 1200,
  height: 630,
  outputFormat: 'png',
  quality: 80,
  scaleFactor: 1,
  recordDuration: null,
  fps: null,
  tags: ['a'],
  createdBy: 'key-1',
  sourceTemplateId: null,
  html: null,
  css: null,
  sampleData: null,
  mergeFields: [],
  components: null,
  properties: null,
  preview: null,
  deleted: false,
  revision: 0,
  version: 1,
  publishedVersion: null,
  createdAt: new Date(at(0)),
  updatedAt: new Date(at(0)),
};

describe('templates projection', () => {
  it('TemplateCreated inserts a row with every field, at revision 0', async () => {
    await spec().given().when(created).then(rows(TemplateRow, [createdRow]));
  });

  it('later events change what they carry and move the revision and updatedAt', async () => {
    await spec()
      .given(created)
      .when(
        on(templateStream(templateId), { type: 'TemplateUpdated', data: { templateId, changes: { width: 800, tags: ['b', 'c'] }, updatedAt: at(1) } }),
        on(templateStream(templateId), { type: 'TemplateContentReplaced', data: { templateId, html: '<p>{{x}}</p>', css: 'p{}', sampleData: { x: 1 }, mergeFields: ['x'], replacedAt: at(2) } }),
      )
      .then(rows(TemplateRow, [{ ...createdRow, width: 800, tags: ['b', 'c'], html: '<p>{{x}}</p>', css: 'p{}', sampleData: { x: 1 }, mergeFields: ['x'], revision: 2, version: 3, updatedAt: new Date(at(2)) }]));
  });

  it('publishing marks the version and leaves the revision of the latest; a restore is a version with the old one whole', async () => {
    const edited = on(templateStream(templateId), { type: 'TemplateContentReplaced', data: { templateId, html: '<p>new</p>', css: '', sampleData: {}, mergeFields: [], replacedAt: at(1) } });
    await spec()
      .given(created, edited)
      .when(
        on(templateStream(templateId), { type: 'TemplatePublished', data: { templateId, version: 1, publishedAt: at(2) } }),
        on(templateStream(templateId), {
          type: 'TemplateVersionRestored',
          data: {
            templateId,
            restoredFrom: 1,
            settings: { name: 'Card', width: 1200, height: 630, outputFormat: 'png', quality: 80, scaleFactor: 1, tags: ['a'], recordDuration: null, fps: null },
            content: null,
            components: null,
            properties: [],
            restoredAt: at(3),
          },
        }),
      )
      .then(rows(TemplateRow, [{ ...createdRow, revision: 3, version: 3, publishedVersion: 1, updatedAt: new Date(at(3)) }]));
  });

  it('TemplateDeleted keeps the row, marked deleted', async () => {
    await spec()
      .given(created)
      .when(on(templateStream(templateId), { type: 'TemplateDeleted', data: { templateId, deletedAt: at(3) } }))
      .then(rows(TemplateRow, [{ ...createdRow, deleted: true, revision: 1, updatedAt: new Date(at(3)) }]));
  });

  it('events of a template it never saw created change nothing', async () => {
    await spec()
      .given()
      .when(on(templateStream('tpl-unknown'), { type: 'TemplateDeleted', data: { templateId: 'tpl-unknown', deletedAt: at(3) } }))
      .then();
  });
});
