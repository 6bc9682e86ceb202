import { z } from 'zod';
import type { TemplateEvent } from '../../domain/templates/template-events.js';
import { EDITORS, FPS_VALUES, OUTPUT_FORMATS } from '../../domain/templates/template-settings.js';
import { COMPONENT_TYPES } from '../../domain/templates/components/component-document.js';
import { PROPERTY_INPUTS } from '../../domain/templates/components/property-checks.js';
import { id, isoTime, jsonObject } from './common-schemas.js';
import { eventSchema, type EventSchemas } from './versioned-event-schema.js';

const outputFormat = z.enum(OUTPUT_FORMATS);
const fps = z.union(FPS_VALUES.map((value) => z.literal(value)));

/** The decider checked the document in full before it was recorded; this guards its frame. */
const componentDocument = z.object({
  background: z.string().optional(),
  components: z.array(
    z.looseObject({ id: id, type: z.enum(COMPONENT_TYPES), x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
  ),
});

const properties = z.array(
  z.object({
    key: z.string(),
    type: z.enum(PROPERTY_INPUTS),
    defaultValue: z.string(),
    componentId: id,
    componentType: z.enum(COMPONENT_TYPES),
    property: z.string(),
    locked: z.boolean(),
  }),
);

const htmlContent = z.object({ html: z.string(), css: z.string(), sampleData: jsonObject, mergeFields: z.array(z.string()) });

const version = z.number().int().positive();

export const templateEventSchemas: EventSchemas<TemplateEvent> = {
  /**
   * v1 (before video and duplication) had no recordDuration, fps or sourceTemplateId and could
   * omit tags; v2 states them.
   */
  TemplateCreated: eventSchema(
    z.object({
      templateId: id,
      orgId: id,
      name: z.string(),
      editor: z.enum(EDITORS),
      width: z.number().int(),
      height: z.number().int(),
      outputFormat,
      quality: z.number().int(),
      scaleFactor: z.number(),
      recordDuration: z.number().int().nullable(),
      fps: fps.nullable(),
      tags: z.array(z.string()),
      createdBy: z.string(),
      sourceTemplateId: z.string().nullable(),
      createdAt: isoTime,
    }),
    (v1) => ({
      ...v1,
      tags: v1.tags ?? [],
      recordDuration: v1.recordDuration ?? null,
      fps: v1.fps ?? null,
      sourceTemplateId: v1.sourceTemplateId ?? null,
    }),
  ),
  TemplateUpdated: eventSchema(
    z.object({
      templateId: id,
      changes: z.object({
        name: z.string().optional(),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
        outputFormat: outputFormat.optional(),
        quality: z.number().int().optional(),
        scaleFactor: z.number().optional(),
        tags: z.array(z.string()).optional(),
      }),
      updatedAt: isoTime,
    }),
  ),
  TemplateContentReplaced: eventSchema(
    z.object({
      templateId: id,
      html: z.string(),
      css: z.string(),
      sampleData: jsonObject,
      mergeFields: z.array(z.string()),
      replacedAt: isoTime,
    }),
  ),
  TemplateComponentsReplaced: eventSchema(
    z.object({
      templateId: id,
      components: componentDocument,
      properties,
      replacedAt: isoTime,
    }),
  ),
  TemplateDeleted: eventSchema(z.object({ templateId: id, deletedAt: isoTime })),
  TemplatePublished: eventSchema(z.object({ templateId: id, version, publishedAt: isoTime })),
  TemplateVersionRestored: eventSchema(
    z.object({
      templateId: id,
      restoredFrom: version,
      settings: z.object({
        name: z.string(),
        width: z.number().int(),
        height: z.number().int(),
        outputFormat,
        quality: z.number().int(),
        scaleFactor: z.number(),
        tags: z.array(z.string()),
        recordDuration: z.number().int().nullable(),
        fps: fps.nullable(),
      }),
      content: htmlContent.nullable(),
      components: componentDocument.nullable(),
      properties,
      restoredAt: isoTime,
    }),
  ),
};
