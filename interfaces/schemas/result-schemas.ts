import { z } from 'zod';
import { pageQuery } from './common.js';

export const ListResultsQuery = z.object({
  template: z.string().min(1).max(200).optional().meta({ description: 'Only results of this template' }),
  batch: z.string().min(1).max(255).optional().meta({ description: 'Only results of this batch (batchName)' }),
  ...pageQuery,
});

export const TextFitsSchema = z
  .record(
    z.string(),
    z.object({
      fontSize: z.number().meta({ description: 'The font size drawn, in CSS pixels' }),
      lines: z.number().int().meta({ description: 'Lines the text took' }),
      truncated: z.boolean().meta({ description: 'Part of the text did not fit even at the smallest size allowed and was cut (with an ellipsis unless overflow is clip)' }),
    }),
  )
  .meta({
    id: 'TextFits',
    description: 'Only for renders with fitted text (canvas TEXT with fit or autoFit, html elements with data-fit): what fitting did, by component id or element id',
  });

export const ResultIdParam = z.object({ identifier: z.string().min(1).max(200) });

export const FileParams = z.object({ requestId: z.string().min(1).max(200), fileName: z.string().min(1).max(1000) });

export const FileQuery = z.object({
  expires: z.string().optional().meta({ description: 'Epoch seconds after which a signed link stops working' }),
  signature: z.string().optional(),
});

const sort = z.object({ empty: z.boolean(), unsorted: z.boolean(), sorted: z.boolean() }).meta({ id: 'Sort' });

export const ResultListItem = z
  .object({
    identifier: z.string(),
    href: z.string(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    templateName: z.string(),
    templateVersion: z.number().int().optional().meta({ description: 'An extension of this service: the template version rendered; absent for captures and renders made before versions existed' }),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'RenderResultListItem' });

export const ResultPage = z
  .object({
    content: z.array(ResultListItem),
    pageable: z.object({
      sort,
      offset: z.number().int(),
      pageNumber: z.number().int(),
      pageSize: z.number().int(),
      unpaged: z.boolean(),
      paged: z.boolean(),
    }),
    totalPages: z.number().int(),
    totalElements: z.number().int(),
    last: z.boolean(),
    size: z.number().int(),
    number: z.number().int().meta({ description: 'Zero-based page number' }),
    sort,
    numberOfElements: z.number().int(),
    first: z.boolean(),
    empty: z.boolean(),
  })
  .meta({ id: 'PageRenderResult' });

export const ResultDetail = ResultListItem.extend({
  status: z.enum(['pending', 'done', 'failed']),
  template: z.string(),
  completedAt: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  batch: z.string().nullable(),
  format: z.string(),
  cached: z.boolean(),
  credits: z.number().int(),
  failureReason: z.string().optional().meta({ description: 'Only for failed renders' }),
  kind: z.enum(['template', 'screenshot', 'pdf']).meta({ description: 'A render of a template, or a capture of a web page' }),
  url: z.string().optional().meta({ description: 'Only for screenshots and PDFs: the page captured' }),
  progress: z
    .object({ framesDone: z.number().int(), framesTotal: z.number().int() })
    .optional()
    .meta({ description: 'Only for pending video renders: frames captured so far of the whole video' }),
  webhook: z
    .object({
      url: z.string(),
      status: z.enum(['pending', 'retrying', 'delivered', 'failed']).meta({
        description:
          'pending: not attempted yet; retrying: the last attempt failed and another will come; delivered; failed: retries ran out. Failed renders are delivered too (status failed in the body)',
      }),
      attempts: z.number().int(),
      lastStatusCode: z.number().int().nullable().meta({ description: "The receiver's last answer; null when it gave none" }),
      lastError: z.string().nullable(),
      deliveredAt: z.string().nullable(),
    })
    .optional()
    .meta({ description: 'Only for requests with a webhookUrl: how the delivery stands' }),
  fit: TextFitsSchema.optional(),
  test: z.literal(true).optional().meta({ description: "Only for a test key's renders and captures: free, watermarked TEST, kept 24 hours, not in usage" }),
}).meta({ id: 'RenderResult' });

export const Usage = z
  .object({
    identifier: z.string(),
    credits: z.object({ used: z.number().int(), total: z.number().int(), nextRenewalAt: z.string(), renewalAmount: z.number().int() }),
    uploads: z.object({ used: z.number().int().meta({ description: 'Bytes' }), total: z.number().int().meta({ description: 'Bytes' }) }),
    plan: z.object({ name: z.string(), status: z.string(), nextBillingAt: z.string() }),
  })
  .meta({ id: 'Usage' });

export const Font = z
  .object({
    originalName: z.string(),
    family: z.string(),
    variants: z.array(z.string()),
    defaultVariant: z.string(),
    subsets: z.array(z.string()),
    category: z.string(),
    source: z.enum(['GOOGLE', 'CUSTOM']),
    size: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'Font' });

export const CustomFont = Font.extend({
  identifier: z.string().meta({ description: 'Deletes the font: DELETE /api/v1/fonts/{identifier}' }),
  source: z.literal('CUSTOM'),
}).meta({ id: 'CustomFont', description: 'A font uploaded by the organization; templates use it by its family' });

export const FontIdParam = z.object({ identifier: z.string().min(1).max(200) });

export const FontUploadForm = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'A TTF, OTF, WOFF or WOFF2 font, at most 10 MB' }),
    family: z.string().max(100).optional().meta({ description: "The family templates name; default the font's own family name" }),
  })
  .meta({ id: 'FontUploadForm' });

export const Upload = z
  .object({
    identifier: z.string(),
    href: z.string().meta({ description: "The image's address: an image source in the organization's templates (img src, CSS url(), an IMAGE component's src); fetching it needs the organization's API key" }),
    contentType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml']),
    size: z.number().int().meta({ description: 'Bytes, counted in uploads.used' }),
    width: z.number().int(),
    height: z.number().int(),
    createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'Upload' });

export const UploadPage = ResultPage.extend({ content: z.array(Upload) }).meta({ id: 'PageUpload' });

export const UploadIdParam = z.object({ identifier: z.string().min(1).max(200) });

export const ListUploadsQuery = z.object({ ...pageQuery });

export const ImageUploadForm = z
  .object({ file: z.string().meta({ format: 'binary', description: 'A PNG, JPEG, WebP, GIF or SVG image, at most 20 MB. An SVG is at most 5 MB of well-formed XML, nests elements at most 256 deep and has at most 20,000 of them; it is stored without scripts, event handlers and external references' }) })
  .meta({ id: 'ImageUploadForm' });
