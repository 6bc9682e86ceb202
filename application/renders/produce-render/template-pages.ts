import { foldEvents } from '../../../domain/shared/decider.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { EMPTY_COMPONENT_DOCUMENT } from '../../../domain/templates/components/component-document.js';
import { resolveValues } from '../../../domain/templates/components/resolve-values.js';
import { videoClipsOf } from '../../../domain/templates/components/video-clips.js';
import { templateDecider } from '../../../domain/templates/template-decider.js';
import { isTemplateEvent, templateStream } from '../../../domain/templates/template-events.js';
import { withFontFaces } from '../../fonts/font-faces.js';
import type { CanvasRenderer } from '../../ports/canvas-renderer.js';
import type { EventStore } from '../../ports/event-store.js';
import type { AssetReadModel } from '../../ports/read-models.js';
import type { RenderDocument, TemplateMerger } from '../../ports/render-engine.js';
import { settledMemo } from '../../shared/settled-memo.js';
import { readEvents } from '../../shared/stream-reads.js';
import { htmlDocument } from '../html-document.js';

export interface TemplatePagesDeps {
  readonly eventStore: EventStore;
  readonly merger: TemplateMerger;
  readonly canvas: CanvasRenderer;
  readonly assets: Pick<AssetReadModel, 'listFonts'>;
}

/** Templates in use at their pinned revisions (each up to the body limit): read once, not per render. */
const TEMPLATE_REVISIONS_KEPT = 32;

/** A request's page: its template at the revision the request pinned, with the request's data, as a document to render. */
export const createTemplatePages = (deps: TemplatePagesDeps) => {
  /** The template's content as it was at the revision the request pinned, whatever happened since. */
  const readTemplateAt = async (templateId: string, revision: number) => {
    const events = (await readEvents(deps.eventStore, templateStream(templateId), isTemplateEvent)).filter((event) => event.revision <= revision);
    const template = foldEvents(templateDecider, events);
    if (template.status !== 'active') throw new DomainError('validation', `Template ${templateId} is not available`);
    return template;
  };
  // A pinned revision's events are all written: what they fold to is settled.
  const templateAt = settledMemo(readTemplateAt, { capacity: TEMPLATE_REVISIONS_KEPT, keyOf: (templateId, revision) => `${templateId}@${revision}` });
  type PinnedTemplate = Awaited<ReturnType<typeof templateAt>>;

  /** The template's markup with the request's data: merged html, or the canvas drawn from its components. */
  const documentOf = async (template: PinnedTemplate, data: Record<string, unknown>, size: Omit<RenderDocument, 'html'>): Promise<RenderDocument> => {
    if (template.fields.editor !== 'html-editor') {
      const components = template.components ?? EMPTY_COMPONENT_DOCUMENT;
      const values = resolveValues(components, data);
      const videoClips = videoClipsOf(components, values);
      return { ...size, html: await deps.canvas.toHtml(components, values, size), ...(videoClips.length > 0 ? { videoClips } : {}) };
    }
    const content = template.content ?? { html: '', css: '', sampleData: {} };
    return htmlDocument(deps.merger.merge(content.html, { ...content.sampleData, ...data }), content.css, size);
  };

  return {
    templateAt,
    /** The page to render: the template's document with its organization's uploaded fonts declared. */
    async pageOf(template: PinnedTemplate, data: Record<string, unknown>, size: Omit<RenderDocument, 'html'>): Promise<RenderDocument> {
      const [document, fonts] = await Promise.all([documentOf(template, data, size), deps.assets.listFonts(template.fields.orgId)]);
      return withFontFaces(document, fonts);
    },
  };
};
