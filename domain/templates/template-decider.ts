import { isTemplateEvent } from './template-events.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { conflict, notFound, validationError } from '../shared/errors.js';
import { assertJsonFieldSizes } from '../shared/json-size.js';
import type {
  CreateTemplate,
  DeleteTemplate,
  PublishTemplateVersion,
  ReplaceTemplateComponents,
  ReplaceTemplateContent,
  RestoreTemplateVersion,
  TemplateCommand,
  UpdateTemplate,
} from './template-commands.js';
import type {
  TemplateChanges,
  TemplateComponentsReplaced,
  TemplateContentReplaced,
  TemplateCreated,
  TemplateDeleted,
  TemplateEvent,
  TemplatePublished,
  TemplateUpdated,
  TemplateVersionRestored,
} from './template-events.js';
import { assertUsesComponents, documentProblems } from './components/document-problems.js';
import { deriveProperties } from './components/template-properties.js';
import { changedParts, evolveTemplate, initialTemplate, settingsOf, type ActiveTemplate, type Template, type TemplateFields } from './template.js';
import {
  assertFormatFitsEditor,
  assertRenderableSize,
  DEFAULT_FPS,
  QUALITY,
  RECORD_DURATION,
  SCALE_FACTOR,
  supportsVideo,
} from './template-settings.js';

/** Another organization's template is reported exactly like a missing one, so ids leak nothing. */
const requireOwnedActive = (state: Template, orgId: string): ActiveTemplate => {
  if (state.status !== 'active' || state.fields.orgId !== orgId) throw notFound('Template');
  return state;
};

const uniqueTags = (tags: readonly string[] | undefined): string[] => [...new Set(tags ?? [])];

export const decideCreateTemplate = ({ data }: CreateTemplate, state: Template): TemplateCreated[] => {
  if (state.status !== 'absent') throw conflict(`Template ${data.templateId} already exists`);
  const outputFormat = data.outputFormat ?? 'jpeg';
  assertFormatFitsEditor(outputFormat, data.editor);
  const video = supportsVideo(data.editor);
  if (!video && (data.recordDuration !== undefined || data.fps !== undefined)) {
    throw validationError('recordDuration and fps are only available for canvas-html (video) templates');
  }
  const scaleFactor = data.scaleFactor ?? SCALE_FACTOR.default;
  assertRenderableSize({ width: data.width, height: data.height, scaleFactor, format: outputFormat });
  return [
    {
      type: 'TemplateCreated',
      data: {
        templateId: data.templateId,
        orgId: data.orgId,
        name: data.name,
        editor: data.editor,
        width: data.width,
        height: data.height,
        outputFormat,
        quality: data.quality ?? QUALITY.default,
        scaleFactor,
        recordDuration: video ? (data.recordDuration ?? RECORD_DURATION.default) : null,
        fps: video ? (data.fps ?? DEFAULT_FPS) : null,
        tags: uniqueTags(data.tags),
        createdBy: data.createdBy,
        sourceTemplateId: data.sourceTemplateId ?? null,
        createdAt: data.now,
      },
    },
  ];
};

/** Keeps only the changes that differ from the current fields, so a no-op PATCH records nothing. */
const effectiveChanges = (fields: TemplateFields, changes: TemplateChanges): TemplateChanges => {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes) as [keyof TemplateChanges, unknown][]) {
    if (value === undefined) continue;
    if (key === 'tags') {
      const tags = uniqueTags(value as string[]);
      if (JSON.stringify(tags) !== JSON.stringify(fields.tags)) result.tags = tags;
    } else if (fields[key] !== value) {
      result[key] = value;
    }
  }
  return result as TemplateChanges;
};

export const decideUpdateTemplate = ({ data }: UpdateTemplate, state: Template): TemplateUpdated[] => {
  const { fields } = requireOwnedActive(state, data.orgId);
  if (data.changes.outputFormat) assertFormatFitsEditor(data.changes.outputFormat, fields.editor);
  const changes = effectiveChanges(fields, data.changes);
  if (Object.keys(changes).length === 0) return [];
  const changed = { ...fields, ...changes };
  assertRenderableSize({ width: changed.width, height: changed.height, scaleFactor: changed.scaleFactor, format: changed.outputFormat });
  return [{ type: 'TemplateUpdated', data: { templateId: data.templateId, changes, updatedAt: data.now } }];
};

export const decideReplaceTemplateContent = (
  { data }: ReplaceTemplateContent,
  state: Template,
): TemplateContentReplaced[] => {
  const { fields } = requireOwnedActive(state, data.orgId);
  if (fields.editor !== 'html-editor') {
    throw validationError(`Template ${data.templateId} uses the ${fields.editor}; html-editor content is only for html-editor templates`);
  }
  assertJsonFieldSizes({ sampleData: data.sampleData });
  return [
    {
      type: 'TemplateContentReplaced',
      data: {
        templateId: data.templateId,
        html: data.html,
        css: data.css,
        sampleData: data.sampleData,
        mergeFields: [...data.mergeFields],
        replacedAt: data.now,
      },
    },
  ];
};

export const decideReplaceTemplateComponents = (
  { data }: ReplaceTemplateComponents,
  state: Template,
): TemplateComponentsReplaced[] => {
  const { fields } = requireOwnedActive(state, data.orgId);
  assertUsesComponents(data.templateId, fields.editor);
  const problems = documentProblems(data.components, fields.editor);
  if (problems.length > 0) throw validationError('Invalid components', problems);
  return [
    {
      type: 'TemplateComponentsReplaced',
      data: {
        templateId: data.templateId,
        components: data.components,
        properties: deriveProperties(data.components),
        replacedAt: data.now,
      },
    },
  ];
};

export const decideDeleteTemplate = ({ data }: DeleteTemplate, state: Template): TemplateDeleted[] => {
  requireOwnedActive(state, data.orgId);
  return [{ type: 'TemplateDeleted', data: { templateId: data.templateId, deletedAt: data.now } }];
};

/**
 * A version named in a request body that does not exist is the request's fault (400), as a render of
 * a missing template is; one named in a path is a missing resource (404).
 */
export const decidePublishTemplateVersion = ({ data }: PublishTemplateVersion, state: Template): TemplatePublished[] => {
  const { versions, publishedVersion } = requireOwnedActive(state, data.orgId);
  const version = data.version ?? versions.length;
  if (!Number.isInteger(version) || version < 1 || version > versions.length) {
    throw validationError(`Template ${data.templateId} has no version ${version}`, [`version: template ${data.templateId} has no version ${version}; it has versions 1 to ${versions.length}`]);
  }
  if (version === publishedVersion) return [];
  return [{ type: 'TemplatePublished', data: { templateId: data.templateId, version, publishedAt: data.now } }];
};

/** A new version equal to an old one; restoring what the template already is records nothing, as a no-op PATCH. */
export const decideRestoreTemplateVersion = ({ data }: RestoreTemplateVersion, state: Template): TemplateVersionRestored[] => {
  const current = requireOwnedActive(state, data.orgId);
  const restored = current.versions[data.version - 1];
  if (!restored) throw notFound(`Template version ${data.version}`);
  if (changedParts(current, restored).length === 0) return [];
  return [
    {
      type: 'TemplateVersionRestored',
      data: {
        templateId: data.templateId,
        restoredFrom: restored.version,
        settings: settingsOf(restored.fields),
        content: restored.content,
        components: restored.components,
        properties: restored.components ? deriveProperties(restored.components) : [],
        restoredAt: data.now,
      },
    },
  ];
};

export const decideTemplate = (command: TemplateCommand, state: Template): TemplateEvent[] => {
  switch (command.type) {
    case 'CreateTemplate':
      return decideCreateTemplate(command, state);
    case 'UpdateTemplate':
      return decideUpdateTemplate(command, state);
    case 'ReplaceTemplateContent':
      return decideReplaceTemplateContent(command, state);
    case 'ReplaceTemplateComponents':
      return decideReplaceTemplateComponents(command, state);
    case 'DeleteTemplate':
      return decideDeleteTemplate(command, state);
    case 'PublishTemplateVersion':
      return decidePublishTemplateVersion(command, state);
    case 'RestoreTemplateVersion':
      return decideRestoreTemplateVersion(command, state);
    default:
      return assertNever(command);
  }
};

export const templateDecider: Decider<Template, TemplateCommand, TemplateEvent> = {
  decide: decideTemplate,
  evolve: evolveTemplate,
  initialState: initialTemplate,
  isEvent: isTemplateEvent,
};
