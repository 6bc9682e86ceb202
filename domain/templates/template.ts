import { assertNever } from '../shared/decider.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { HtmlContent, TemplateCreated, TemplateEvent, VersionSettings } from './template-events.js';
import type { ComponentDocument } from './components/component-document.js';

export type { HtmlContent, VersionSettings } from './template-events.js';

export type TemplateFields = Omit<TemplateCreated['data'], 'createdAt'> & {
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** What a version changed compared with the one before it. */
export const TEMPLATE_PARTS = ['settings', 'content', 'components'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

/** The template as one change left it; version 1 is the template as created. */
export interface TemplateVersion {
  readonly version: number;
  readonly createdAt: string;
  /** Empty for version 1. */
  readonly changed: readonly TemplatePart[];
  /** The earlier version this one restored; null for every other change. */
  readonly restoredFrom: number | null;
  readonly fields: TemplateFields;
  readonly content: HtmlContent | null;
  readonly components: ComponentDocument | null;
}

export type Template =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly fields: TemplateFields;
      readonly content: HtmlContent | null;
      /** canvas-editor and canvas-html templates only. */
      readonly components: ComponentDocument | null;
      /**
       * Every version so far, oldest first, so the last is the current one and its number is the
       * count. Numbers come from folding: stored events carry none, so streams written before
       * versions existed number the same way.
       */
      readonly versions: readonly TemplateVersion[];
      /** The version renders use when they name none; null: the latest. */
      readonly publishedVersion: number | null;
    }
  | { readonly status: 'deleted'; readonly orgId: string };

export type ActiveTemplate = Extract<Template, { status: 'active' }>;

export const initialTemplate = (): Template => ({ status: 'absent' });

export const settingsOf = (fields: TemplateFields): VersionSettings => ({
  name: fields.name,
  width: fields.width,
  height: fields.height,
  outputFormat: fields.outputFormat,
  quality: fields.quality,
  scaleFactor: fields.scaleFactor,
  tags: fields.tags,
  recordDuration: fields.recordDuration,
  fps: fields.fps,
});

type VersionBody = Pick<TemplateVersion, 'fields' | 'content' | 'components'>;

/** The parts in which two states of a template differ; timestamps are no part of any. */
export const changedParts = (before: VersionBody, after: VersionBody): TemplatePart[] => {
  const differs = (a: unknown, b: unknown) => canonicalJson(a) !== canonicalJson(b);
  return TEMPLATE_PARTS.filter((part) =>
    part === 'settings' ? differs(settingsOf(before.fields), settingsOf(after.fields)) : differs(before[part], after[part]),
  );
};

/**
 * Every change after creation is a version, so numbering never depends on comparing. An edit changed
 * the part it wrote; only a restore, which writes them all, is compared (once, not on every fold of
 * the stream a render makes).
 */
const nextVersion = (state: ActiveTemplate, after: VersionBody, at: string, changed: readonly TemplatePart[], restoredFrom: number | null = null): ActiveTemplate => ({
  ...state,
  ...after,
  versions: [...state.versions, { version: state.versions.length + 1, createdAt: at, changed, restoredFrom, ...after }],
});

export const evolveTemplate = (state: Template, event: TemplateEvent): Template => {
  switch (event.type) {
    case 'TemplateCreated': {
      const fields = { ...event.data, updatedAt: event.data.createdAt };
      const first: TemplateVersion = { version: 1, createdAt: event.data.createdAt, changed: [], restoredFrom: null, fields, content: null, components: null };
      return { status: 'active', fields, content: null, components: null, versions: [first], publishedVersion: null };
    }
    case 'TemplateUpdated': {
      if (state.status !== 'active') return state;
      const { tags, ...rest } = event.data.changes;
      const fields = { ...state.fields, ...rest, ...(tags ? { tags: [...tags] } : {}), updatedAt: event.data.updatedAt };
      return nextVersion(state, { fields, content: state.content, components: state.components }, event.data.updatedAt, ['settings']);
    }
    case 'TemplateContentReplaced': {
      if (state.status !== 'active') return state;
      const { html, css, sampleData, mergeFields, replacedAt } = event.data;
      const fields = { ...state.fields, updatedAt: replacedAt };
      return nextVersion(state, { fields, content: { html, css, sampleData, mergeFields }, components: state.components }, replacedAt, ['content']);
    }
    case 'TemplateComponentsReplaced': {
      if (state.status !== 'active') return state;
      const fields = { ...state.fields, updatedAt: event.data.replacedAt };
      return nextVersion(state, { fields, content: state.content, components: event.data.components }, event.data.replacedAt, ['components']);
    }
    case 'TemplateVersionRestored': {
      if (state.status !== 'active') return state;
      const { settings, content, components, restoredFrom, restoredAt } = event.data;
      const restored = { fields: { ...state.fields, ...settings, tags: [...settings.tags], updatedAt: restoredAt }, content, components };
      return nextVersion(state, restored, restoredAt, changedParts(state, restored), restoredFrom);
    }
    case 'TemplatePublished':
      return state.status === 'active' ? { ...state, publishedVersion: event.data.version } : state;
    case 'TemplateDeleted':
      return state.status === 'active' ? { status: 'deleted', orgId: state.fields.orgId } : state;
    default:
      return assertNever(event);
  }
};
