import { EMPTY_COMPONENT_DOCUMENT, type ComponentDocument } from '../../domain/templates/components/component-document.js';
import { outputExtension } from '../../domain/templates/template-settings.js';
import type { TemplateView } from '../ports/read-models.js';

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
});

/** A canvas template without components yet has an empty document. */
export const toComponentsDto = (view: TemplateView): ComponentDocument => view.components ?? EMPTY_COMPONENT_DOCUMENT;

export const toHtmlContentDto = (view: TemplateView): HtmlContentDto => ({
  html: view.html ?? '',
  css: view.css ?? '',
  sampleData: view.sampleData ?? {},
});
