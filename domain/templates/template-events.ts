import { eventGuard, type DomainEvent } from '../shared/events.js';
import type { Editor, Fps, OutputFormat } from './template-settings.js';
import type { ComponentDocument } from './components/component-document.js';
import type { TemplateProperty } from './components/template-properties.js';

export const templateStream = (templateId: string) => `template-${templateId}`;

/** The settings a PATCH can change; `tags` replaces the whole set. */
export interface TemplateChanges {
  readonly name?: string;
  readonly width?: number;
  readonly height?: number;
  readonly outputFormat?: OutputFormat;
  readonly quality?: number;
  readonly scaleFactor?: number;
  readonly tags?: readonly string[];
}

/** A template's settings as one version has them: what a PATCH can change, and its video timing. */
export interface VersionSettings {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly outputFormat: OutputFormat;
  readonly quality: number;
  readonly scaleFactor: number;
  readonly tags: readonly string[];
  readonly recordDuration: number | null;
  readonly fps: Fps | null;
}

export interface HtmlContent {
  readonly html: string;
  readonly css: string;
  readonly sampleData: Record<string, unknown>;
  readonly mergeFields: readonly string[];
}

export type TemplateCreated = DomainEvent<
  'TemplateCreated',
  {
    templateId: string;
    orgId: string;
    name: string;
    editor: Editor;
    width: number;
    height: number;
    outputFormat: OutputFormat;
    quality: number;
    scaleFactor: number;
    /** null unless the template can render video. */
    recordDuration: number | null;
    fps: Fps | null;
    tags: string[];
    createdBy: string;
    sourceTemplateId: string | null;
    createdAt: string;
  }
>;

export type TemplateUpdated = DomainEvent<
  'TemplateUpdated',
  { templateId: string; changes: TemplateChanges; updatedAt: string }
>;

export type TemplateContentReplaced = DomainEvent<
  'TemplateContentReplaced',
  {
    templateId: string;
    html: string;
    css: string;
    sampleData: Record<string, unknown>;
    /** Merge-field names found in `html`, recorded so history explains later renders. */
    mergeFields: string[];
    replacedAt: string;
  }
>;

export type TemplateComponentsReplaced = DomainEvent<
  'TemplateComponentsReplaced',
  {
    templateId: string;
    components: ComponentDocument;
    /** Derived from `components`, recorded so history shows what render data could change. */
    properties: TemplateProperty[];
    replacedAt: string;
  }
>;

export type TemplateDeleted = DomainEvent<'TemplateDeleted', { templateId: string; deletedAt: string }>;

/** Renders that name no version use this one from now on; edits go on making later versions. */
export type TemplatePublished = DomainEvent<'TemplatePublished', { templateId: string; version: number; publishedAt: string }>;

/**
 * A new version equal to version `restoredFrom`. It carries that version whole, so the stream alone
 * (a projection, an audit) tells what the template became without folding the history again.
 */
export type TemplateVersionRestored = DomainEvent<
  'TemplateVersionRestored',
  {
    templateId: string;
    restoredFrom: number;
    settings: VersionSettings;
    content: HtmlContent | null;
    components: ComponentDocument | null;
    /** Derived from `components` (empty without them), as TemplateComponentsReplaced records them. */
    properties: TemplateProperty[];
    restoredAt: string;
  }
>;

export type TemplateEvent =
  | TemplateCreated
  | TemplateUpdated
  | TemplateContentReplaced
  | TemplateComponentsReplaced
  | TemplateDeleted
  | TemplatePublished
  | TemplateVersionRestored;

export const isTemplateEvent = eventGuard<TemplateEvent>({
  TemplateCreated: true,
  TemplateUpdated: true,
  TemplateContentReplaced: true,
  TemplateComponentsReplaced: true,
  TemplateDeleted: true,
  TemplatePublished: true,
  TemplateVersionRestored: true,
});
