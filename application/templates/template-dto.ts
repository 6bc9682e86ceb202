import { EMPTY_COMPONENT_DOCUMENT, type ComponentDocument } from '../../domain/templates/components/component-document.js';
import { outputExtension } from '../../domain/templates/template-settings.js';
import type { TemplatePart } from '../../domain/templates/template.js';
import type { TemplateView } from '../ports/read-models.js';
import type { RecordedTemplateVersion } from './template-versions.js';

/** A Template as the API spec (section 2) describes it. */
export interface TemplateDto {
  identifier: string;
  name: string;
  preview?: string;
  scaleFactor: number;
  outputFormat: string;
  outputExtension: string;
  quality: number;
  width: number;
  height: number;
  recordDuration?: number;
  fps?: number;
  createdBy: string;
  editor: string;
  properties: PropertyDto[];
  fonts: FontRefDto[];
  tags: string[];
  sourceTemplateId?: string;
  createdAt: string;
  updatedAt: string;
  /** The version shown: the latest, or the one asked for. */
  version: number;
  /** The version renders that name none use; absent while renders use the latest. */
  publishedVersion?: number;
}

/** One entry of a template's version list. */
export interface TemplateVersionSummaryDto {
  version: number;
  createdAt: string;
  createdBy: string;
  /** Parts that differ from the version before; empty for version 1. */
  changed: TemplatePart[];
  restoredFrom?: number;
  published: boolean;
}

/** A template as one version had it, its content or components included. */
export interface TemplateVersionDto extends TemplateDto {
  changed: TemplatePart[];
  restoredFrom?: number;
  /** html-editor templates. */
  content?: HtmlContentDto;
  /** canvas-editor and canvas-html templates. */
  components?: ComponentDocument;
}

export interface PropertyDto {
  key: string;
  type: string;
  defaultValue: string;
  componentId: string;
  componentType: string;
  property: string;
  locked: boolean;
}

export interface FontRefDto {
  family: string;
}

export interface HtmlContentDto {
  html: string;
  css: string;
  sampleData: Record<string, unknown>;
}

/** The html document acts as one component whose properties are its merge fields. */
const HTML_COMPONENT_ID = 'html';

const asText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const mergeFieldProperties = (view: TemplateView): PropertyDto[] =>
  view.mergeFields.map((field) => ({
    key: field,
    type: 'text',
    defaultValue: asText(view.sampleData?.[field]),
    componentId: HTML_COMPONENT_ID,
    componentType: 'HTML',
    property: field,
    locked: false,
  }));

export const toTemplateDto = (view: TemplateView): TemplateDto => ({
  identifier: view.id,
  name: view.name,
  ...(view.preview ? { preview: view.preview } : {}),
  scaleFactor: view.scaleFactor,
  outputFormat: view.outputFormat,
  outputExtension: outputExtension(view.outputFormat),
  quality: view.quality,
  width: view.width,
  height: view.height,
  ...(view.recordDuration !== null ? { recordDuration: view.recordDuration } : {}),
  ...(view.fps !== null ? { fps: view.fps } : {}),
  createdBy: view.createdBy,
  editor: view.editor,
  properties: view.editor === 'html-editor' ? mergeFieldProperties(view) : view.properties.map((property) => ({ ...property })),
  fonts: [],
  tags: [...view.tags],
  ...(view.sourceTemplateId ? { sourceTemplateId: view.sourceTemplateId } : {}),
  createdAt: view.createdAt.toISOString(),
  updatedAt: view.updatedAt.toISOString(),
  version: view.version,
  ...(view.publishedVersion !== null ? { publishedVersion: view.publishedVersion } : {}),
});

/**
 * Who made a version, in the spec's terms for `createdBy`: version 1 was made by whoever created the
 * template; every later change came through the API, since this service has no dashboard sessions.
 */
const versionAuthor = (version: RecordedTemplateVersion) => (version.version === 1 ? version.fields.createdBy : 'API');

export const toTemplateVersionSummary = (version: RecordedTemplateVersion, publishedVersion: number | null): TemplateVersionSummaryDto => ({
  version: version.version,
  createdAt: version.createdAt,
  createdBy: versionAuthor(version),
  changed: [...version.changed],
  ...(version.restoredFrom !== null ? { restoredFrom: version.restoredFrom } : {}),
  published: version.version === publishedVersion,
});

export const toTemplateVersionDto = (view: TemplateView, version: RecordedTemplateVersion): TemplateVersionDto => ({
  ...toTemplateDto(view),
  changed: [...version.changed],
  ...(version.restoredFrom !== null ? { restoredFrom: version.restoredFrom } : {}),
  ...(view.editor === 'html-editor' ? { content: toHtmlContentDto(view) } : { components: toComponentsDto(view) }),
});

/** A canvas template without components yet has an empty document. */
export const toComponentsDto = (view: TemplateView): ComponentDocument => view.components ?? EMPTY_COMPONENT_DOCUMENT;

export const toHtmlContentDto = (view: TemplateView): HtmlContentDto => ({
  html: view.html ?? '',
  css: view.css ?? '',
  sampleData: view.sampleData ?? {},
});
