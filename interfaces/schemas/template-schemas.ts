import { z } from 'zod';
import {
  EDITORS,
  FPS_VALUES,
  OUTPUT_FORMATS,
  QUALITY,
  RECORD_DURATION,
  SCALE_FACTOR,
  TEMPLATE_SIZE,
} from '../../domain/templates/template-settings.js';
import { TEMPLATE_PARTS } from '../../domain/templates/template.js';
import { ComponentDocumentBody } from './component-schemas.js';
import { pageQuery, queryList, versionNumber } from './common.js';
import { ResultPage } from './result-schemas.js';

const name = z.string().trim().min(1).max(255);
const dimension = z.number().int().min(TEMPLATE_SIZE.min).max(TEMPLATE_SIZE.max);
const tags = z.array(z.string().trim().min(1).max(64)).max(50);
const quality = z.number().int().min(QUALITY.min).max(QUALITY.max);
const scaleFactor = z.number().min(SCALE_FACTOR.min).max(SCALE_FACTOR.max);
const fps = z.union(FPS_VALUES.map((value) => z.literal(value)) as [z.ZodLiteral<24>, z.ZodLiteral<25>, z.ZodLiteral<30>]);

export const CreateTemplateBody = z
  .object({
    name,
    width: dimension,
    height: dimension,
    editor: z.enum(EDITORS),
    tags: tags.optional(),
    outputFormat: z.enum(OUTPUT_FORMATS).optional().meta({ description: 'jpeg by default; mp4, webm and gif (an extension of this service: an animated GIF, priced like video) only for canvas-html' }),
    quality: quality.optional(),
    scaleFactor: scaleFactor.optional(),
    recordDuration: z.number().int().min(RECORD_DURATION.min).max(RECORD_DURATION.max).optional(),
    fps: fps.optional(),
  })
  .strict()
  .meta({ id: 'CreateTemplateRequest' });

export const CreateTemplateV1Body = CreateTemplateBody.omit({ outputFormat: true, recordDuration: true, fps: true })
  .strict()
  .meta({ id: 'CreateTemplateV1Request' });

export const PatchTemplateBody = z
  .object({
    name,
    width: dimension,
    height: dimension,
    outputFormat: z.enum(['jpeg', 'png', 'pdf']),
    tags,
    quality,
    scaleFactor,
  })
  .partial()
  .strict()
  .meta({ id: 'UpdateTemplateRequest', description: 'Only supplied fields change; tags replace the whole set.' });

export const HtmlContentBody = z
  .object({
    html: z.string().min(1).max(1_000_000),
    css: z.string().max(1_000_000).optional(),
    sampleData: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .meta({ id: 'TemplateContentRequest' });

export const ListTemplatesQuery = z.object({
  name: z.string().max(255).optional(),
  tags: queryList,
  sourceTemplateId: z.string().max(200).optional(),
  ...pageQuery,
});

export const Property = z
  .object({
    key: z.string(),
    type: z.string(),
    defaultValue: z.string(),
    componentId: z.string(),
    componentType: z.string(),
    property: z.string(),
    locked: z.boolean(),
  })
  .meta({ id: 'Property' });

export const TemplateSchema = z
  .object({
    identifier: z.string(),
    name: z.string(),
    preview: z.string().optional(),
    scaleFactor: z.number(),
    outputFormat: z.string(),
    outputExtension: z.string(),
    quality: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    recordDuration: z.number().int().optional(),
    fps: z.number().int().optional(),
    createdBy: z.string(),
    editor: z.enum(EDITORS),
    properties: z.array(Property),
    fonts: z.array(z.object({ family: z.string() })),
    tags: z.array(z.string()),
    sourceTemplateId: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
    version: z.number().int().meta({ description: 'An extension of this service: the version shown (the latest in the template itself); 1 at creation, one more for each change of settings, content or components' }),
    publishedVersion: z.number().int().optional().meta({ description: 'An extension of this service: the version renders without templateVersion use; absent while they use the latest' }),
  })
  .meta({ id: 'Template' });

export const TemplateContent = z
  .object({ html: z.string(), css: z.string(), sampleData: z.record(z.string(), z.unknown()) })
  .meta({ id: 'TemplateContent' });

export const ListTemplateVersionsQuery = z.object(pageQuery);

export const PublishTemplateBody = z
  .object({ version: versionNumber.optional().meta({ description: 'The version to publish; the latest when absent. One the template does not have is a 400' }) })
  .strict()
  .meta({ id: 'PublishTemplateRequest' });

const changed = z.array(z.enum(TEMPLATE_PARTS)).meta({ description: 'Parts that differ from the version before; empty for version 1' });
const restoredFrom = z.number().int().optional().meta({ description: 'The version this one restored' });

export const TemplateVersionSummary = z
  .object({
    version: z.number().int(),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
    createdBy: z.string().meta({ description: 'As Template.createdBy: an e-mail, or the literal API for changes made without a dashboard session' }),
    changed,
    restoredFrom,
    published: z.boolean(),
  })
  .meta({ id: 'TemplateVersionSummary' });

export const TemplateVersionDetail = TemplateSchema.extend({
  changed,
  restoredFrom,
  content: TemplateContent.optional().meta({ description: 'html-editor templates' }),
  components: ComponentDocumentBody.optional().meta({ description: 'canvas-editor and canvas-html templates' }),
}).meta({ id: 'TemplateVersion', description: 'The template as the version had it; updatedAt is when the version was made' });

/** Newest first, in the page wrapper results use. */
export const TemplateVersionPage = ResultPage.extend({ content: z.array(TemplateVersionSummary) }).meta({ id: 'PageTemplateVersion' });
