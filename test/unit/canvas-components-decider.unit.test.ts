import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../domain/shared/decider.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { deriveProperties } from '../../domain/templates/components/template-properties.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import type { TemplateCreated, TemplateEvent } from '../../domain/templates/template-events.js';
import type { Editor } from '../../domain/templates/template-settings.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(templateDecider);
const now = '2026-01-02T03:04:05.000Z';
const later = '2026-01-03T00:00:00.000Z';

const created = (editor: Editor): TemplateCreated => ({
  type: 'TemplateCreated',
  data: {
    templateId: 't1',
    orgId: 'org-a',
    name: 'Card',
    editor,
    width: 400,
    height: 200,
    outputFormat: 'png',
    quality: 80,
    scaleFactor: 1,
    recordDuration: editor === 'canvas-html' ? 5000 : null,
    fps: editor === 'canvas-html' ? 30 : null,
    tags: [],
    createdBy: 'API',
    sourceTemplateId: null,
    createdAt: now,
  },
});

const document: ComponentDocument = {
  components: [{ id: 'title', type: 'TEXT', x: 0, y: 0, width: 400, height: 100, text: 'Hello' }],
};

const replace = (components: ComponentDocument, orgId = 'org-a') => ({
  type: 'ReplaceTemplateComponents' as const,
  data: { templateId: 't1', orgId, components, now: later },
});

describe('ReplaceTemplateComponents', () => {
  it('records the document with the properties derived from it', () =>
    spec
      .given([created('canvas-editor')])
      .when(replace(document))
      .then([
        {
          type: 'TemplateComponentsReplaced',
          data: { templateId: 't1', components: document, properties: deriveProperties(document), replacedAt: later },
        },
      ]));

  it('keeps the document in the template state', () => {
    const events = templateDecider.decide(replace(document), foldEvents(templateDecider, [created('canvas-html')]));
    const state = foldEvents(templateDecider, [created('canvas-html'), ...events] as TemplateEvent[]);
    expect(state).toMatchObject({ status: 'active', components: document, fields: { updatedAt: later } });
  });

  it('refuses html-editor templates', () =>
    spec.given([created('html-editor')]).when(replace(document)).thenThrows('validation', /only for canvas-editor and canvas-html/));

  it('refuses an invalid document, naming the component and property', () => {
    let details: readonly string[] = [];
    try {
      templateDecider.decide(
        replace({ components: [{ id: 'title', type: 'TEXT', x: 0, y: 0, width: 1, height: 1, fontSize: -1 }] }),
        foldEvents(templateDecider, [created('canvas-editor')]),
      );
    } catch (error) {
      details = (error as { details: readonly string[] }).details;
    }
    expect(details).toEqual(["components[0] (id 'title').fontSize: must be a number from 1 to 1000"]);
  });

  it("reports another organization's template as missing", () =>
    spec.given([created('canvas-editor')]).when(replace(document, 'org-b')).thenThrows('not_found'));
});
