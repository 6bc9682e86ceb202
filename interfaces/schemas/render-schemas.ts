import { z } from 'zod';
import { FILE_NAME_PATTERN, FILE_NAME_RULE } from '../../domain/renders/file-names.js';
import { OUTPUT_FORMATS } from '../../domain/renders/output-formats.js';
import { PDF_STANDARDS } from '../../domain/renders/pdf-standards.js';
import { FPS_VALUES, RECORD_DURATION, TEMPLATE_SIZE } from '../../domain/templates/template-settings.js';

const fps = z.union(FPS_VALUES.map((value) => z.literal(value)) as [z.ZodLiteral<24>, z.ZodLiteral<25>, z.ZodLiteral<30>]);
const outputSize = z.number().int().min(TEMPLATE_SIZE.min).max(TEMPLATE_SIZE.max);

export const RenderBody = z
  .object({
    template: z.string().min(1).max(200),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          'Values by property key (canvas templates: `<componentId>.<property>`) or merge field (html-editor). Merge fields may hold lists and objects: `{{#items}}...{{/items}}` repeats per item, `{{^items}}...{{/items}}` shows when the list is empty. At most 512 KB of JSON, lists of at most 10,000 items, nesting at most 16 levels deep; the merged document at most 10,485,760 characters. Canvas TEXT components fit their text by `fit`, `minFontSize`, `maxLines` and `overflow`, html elements by `data-fit` attributes; the result says what fitting did (`fit`)',
      }),
    fileName: z
      .string()
      .regex(FILE_NAME_PATTERN, FILE_NAME_RULE)
      .optional(),
    webhookUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048).optional(),
    version: z.string().max(200).optional(),
    templateVersion: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .meta({
        description:
          'An extension of this service: the template version to render, exactly as it was (settings, content, components). Without it the published version, else the latest. A version the template does not have is a 400',
      }),
    metadata: z.record(z.string(), z.unknown()).optional(),
    batchName: z.string().min(1).max(200).optional(),
    cache: z.boolean().optional(),
    waitTime: z.number().int().min(0).max(5000).optional(),
    outputFormat: z
      .enum(OUTPUT_FORMATS)
      .optional()
      .meta({ description: "The template's by default. mp4, webm and gif only for canvas-html templates; gif is an extension of this service (an animated GIF, frames at most 1280 x 720, priced like video)" }),
    duration: z.number().int().min(RECORD_DURATION.min).max(RECORD_DURATION.max).optional(),
    fps: fps.optional(),
    expires: z.number().int().min(1).max(604800).optional(),
    width: outputSize.optional(),
    height: outputSize.optional(),
    pdfStandard: z
      .enum(PDF_STANDARDS)
      .optional()
      .meta({
        description:
          'An extension of this service: the archival standard the PDF meets (XMP identification, an sRGB output intent, embedded fonts, no encryption or scripts). Only with a pdf output; a plain PDF when absent',
      }),
  })
  .strict()
  .meta({ id: 'RenderRequest' });

export const RenderQuery = z.object({ output: z.enum(['json', 'image']).default('json') });

export const RenderResponse = z
  .object({
    requestId: z.string(),
    href: z.string(),
    status: z.enum(['pending', 'done', 'failed']).optional(),
    cached: z.boolean().optional(),
  })
  .meta({ id: 'RenderResponse' });

/** GET /img/{templateId}.jpg: every query pair but apiKey is a value for the template. */
export const ImageQuery = z
  .record(z.string(), z.union([z.string(), z.array(z.string())]))
  .transform((query) => {
    const { apiKey: _apiKey, ...values } = query;
    return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Array.isArray(value) ? value.at(-1) ?? '' : value]));
  });
