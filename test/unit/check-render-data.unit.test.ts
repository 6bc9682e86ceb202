import { describe, expect, it } from 'vitest';
import type { TemplateView } from '../../application/ports/read-models.js';
import { checkRenderData } from '../../application/renders/check-render/check-render-data.js';
import type { ComponentDocument } from '../../domain/templates/components/component-document.js';
import { deriveProperties } from '../../domain/templates/components/template-properties.js';

const box = { x: 0, y: 0, width: 100, height: 50 };
const document: ComponentDocument = {
  components: [
    { id: 'title', type: 'TEXT', ...box, text: 'Hello' },
    { id: 'logo', type: 'RECTANGLE', ...box, locked: true },
  ],
};
const base = {
  id: 't1',
  orgId: 'org-a',
  name: 'Card',
  width: 200,
  height: 100,
  outputFormat: 'png',
  quality: 90,
  scaleFactor: 1,
  recordDuration: null,
  fps: null,
  tags: [],
  createdBy: 'API',
  sourceTemplateId: null,
  preview: null,
  revision: 1,
  version: 1,
  publishedVersion: null,
  createdAt: new Date(),
  updatedAt: new Date(),
} as const;
const canvas = { ...base, editor: 'canvas-editor', html: null, css: null, sampleData: null, mergeFields: [], components: document, properties: deriveProperties(document) } as unknown as TemplateView;
const html = { ...base, editor: 'html-editor', html: '<p>{{name}} {{title}}</p>', css: '', sampleData: {}, mergeFields: ['name', 'title'], components: null, properties: [] } as unknown as TemplateView;

describe('render data checked as its render would check it', () => {
  it('passes data that names known keys with good values, with what it costs', () => {
    expect(checkRenderData(canvas, { data: { 'title.text': 'Hi', 'title.fontSize': 20 } })).toEqual({ problems: [], cost: 1 });
    expect(checkRenderData(html, { data: { name: 'Ada', title: 'Dr' } })).toEqual({ problems: [], cost: 1 });
  });

  it('names keys the template does not have, as a batch row is told', () => {
    expect(checkRenderData(html, { data: { name: 'Ada', titel: 'Dr' } }).problems).toEqual(['titel: the template has no merge field titel']);
    expect(checkRenderData(canvas, { data: { 'title.txt': 'Hi' } }).problems).toEqual(['title.txt: the template has no property title.txt']);
  });

  it('judges canvas values as a render does: bad values and locked components, one line each, charging nothing', () => {
    const checked = checkRenderData(canvas, { data: { 'title.fontSize': -4, 'logo.fill': '#000000' } });
    expect(checked.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^title\.fontSize: /), "logo.fill: component 'logo' is locked"]));
    expect(checked.cost).toBe(0);
  });

  it('refuses data past the size bound', () => {
    expect(checkRenderData(html, { data: { name: 'x'.repeat(2_000_000) } }).problems.join(' ')).toMatch(/name|data/);
  });
});
