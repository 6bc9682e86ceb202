import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { AuditHistoryPage, AuditHistoryQuery, AuditTemplateParams, AuditTemplateQuery, TemplateSnapshot } from '../schemas/audit-schemas.js';
import { ErrorBody, IdParam } from '../schemas/common.js';
import { ComponentDocumentBody } from '../schemas/component-schemas.js';
import { RenderBody, RenderQuery, RenderResponse } from '../schemas/render-schemas.js';
import { CaptureResponse, PdfBody, RequestRecord, RequestsQuery, ScreenshotBody, V1RenderBody, V1RenderQuery, V1RenderResponse } from '../schemas/v1-schemas.js';
import { FileParams, FileQuery, Font, ListResultsQuery, ResultDetail, ResultIdParam, ResultPage, Usage } from '../schemas/result-schemas.js';
import {
  CreateTemplateBody,
  CreateTemplateV1Body,
  HtmlContentBody,
  ListTemplatesQuery,
  PatchTemplateBody,
  Template,
  TemplateContent,
} from '../schemas/template-schemas.js';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

const errors = Object.fromEntries(
  [
    [400, 'Invalid input; errors lists each problem'],
    [403, 'Missing or invalid API key'],
    [404, 'Unknown resource or route'],
    [413, 'Body too large'],
    [431, 'URL or headers too large'],
    [500, 'Unexpected error'],
    [503, 'Temporarily unavailable; see Retry-After'],
  ].map(([status, description]) => [String(status), { description: String(description), ...json(ErrorBody) }]),
);

const operation = (
  summary: string,
  okDescription: string,
  okSchema: z.ZodType | null,
  extra: Partial<ZodOpenApiOperationObject> = {},
): ZodOpenApiOperationObject => ({
  summary,
  ...extra,
  responses: { '200': { description: okDescription, ...(okSchema ? json(okSchema) : {}) }, ...errors },
});

const paths: ZodOpenApiPathsObject = {
  '/api/v2/my-templates': {
    get: operation('List templates', 'Templates of the caller', z.array(Template), { requestParams: { query: ListTemplatesQuery } }),
    post: operation('Create an empty template', 'The new template', Template, { requestBody: json(CreateTemplateBody) }),
  },
  '/api/v1/templates': {
    post: operation('Create an empty template (v1)', 'The new template', Template, { requestBody: json(CreateTemplateV1Body) }),
  },
  '/api/v2/my-templates/{templateId}': {
    get: operation('Read a template', 'The template', Template, { requestParams: { path: IdParam } }),
    patch: operation('Change template settings', 'The template after the change', Template, {
      requestParams: { path: IdParam },
      requestBody: json(PatchTemplateBody),
    }),
    delete: operation('Delete a template (soft)', 'Deleted', null, { requestParams: { path: IdParam } }),
  },
  '/api/v2/my-templates/{templateId}/html-editor': {
    get: operation('Read html-editor content', 'The content', TemplateContent, { requestParams: { path: IdParam } }),
    put: operation('Replace html-editor content', 'The content as persisted', TemplateContent, {
      requestParams: { path: IdParam },
      requestBody: json(HtmlContentBody),
    }),
  },
  '/api/v2/my-templates/{templateId}/components': {
    get: operation('Read the components of a canvas-editor or canvas-html template (400 for html-editor)', 'The component document', ComponentDocumentBody, {
      requestParams: { path: IdParam },
    }),
    put: operation(
      'Replace the components of a canvas-editor or canvas-html template (400 for html-editor); the template properties follow from them',
      'The component document as persisted',
      ComponentDocumentBody,
      { requestParams: { path: IdParam }, requestBody: json(ComponentDocumentBody) },
    ),
  },
  '/api/v2/results': {
    get: operation('List render results, newest first', 'One page of results', ResultPage, { requestParams: { query: ListResultsQuery } }),
  },
  '/api/v2/results/{identifier}': {
    get: operation('Read a render result (poll it for video renders)', 'The result', ResultDetail, { requestParams: { path: ResultIdParam } }),
    delete: operation('Delete a render result and its file', 'Deleted', null, { requestParams: { path: ResultIdParam } }),
  },
  '/api/v2/render': {
    post: operation('Render a template', 'requestId and href; with output=image the image itself; 202 for video', RenderResponse, {
      requestParams: { query: RenderQuery },
      requestBody: json(RenderBody),
    }),
  },
  '/img/{templateId}.jpg': {
    get: {
      summary: 'Render a template as JPEG from query values (apiKey in the query)',
      requestParams: { path: z.object({ templateId: z.string() }) },
      parameters: [{ in: 'query', name: 'apiKey', required: true, schema: { type: 'string' } }],
      security: [],
      responses: { '200': { description: 'The image', content: { 'image/jpeg': {} } }, ...errors },
    },
  },
  '/api/v1/screenshots': {
    post: operation('Screenshot a web page: an image of exactly width x height', 'requestId, href and the request as sent', CaptureResponse, {
      requestBody: json(ScreenshotBody),
    }),
  },
  '/api/v1/pdf': {
    post: operation('Print a web page to PDF on the given paper size', 'requestId, href and the request as sent', CaptureResponse, { requestBody: json(PdfBody) }),
  },
  '/api/v1/render': {
    post: operation('Render a template (deprecated: use POST /api/v2/render)', 'requestId and href', V1RenderResponse, {
      deprecated: true,
      requestParams: { query: V1RenderQuery },
      requestBody: json(V1RenderBody),
    }),
  },
  '/api/v1/requests': {
    get: operation('List renders and captures, newest first (deprecated: use GET /api/v2/results)', 'Request records', z.array(RequestRecord), {
      deprecated: true,
      requestParams: { query: RequestsQuery },
    }),
  },
  '/api/v1/usage': {
    get: operation('Credits, upload storage and plan of the organization', 'The usage summary', Usage),
  },
  '/api/v2/audit/history': {
    get: operation('Render history replayed from the event log (audit scope)', 'One page of history rows, in request order', AuditHistoryPage, {
      requestParams: { query: AuditHistoryQuery },
    }),
  },
  '/api/v2/audit/templates/{templateId}': {
    get: operation('A template exactly as it was at a moment (audit scope)', 'The template at that moment', TemplateSnapshot, {
      requestParams: { path: AuditTemplateParams, query: AuditTemplateQuery },
    }),
  },
  '/api/v1/fonts': {
    get: operation('Fonts available to renders', 'Every font family', z.array(Font)),
  },
  '/files/{requestId}/{fileName}': {
    get: {
      summary: 'A rendered file at its href; no API key, expiring links carry expires and signature',
      security: [],
      requestParams: { path: FileParams, query: FileQuery },
      responses: {
        '200': { description: 'The file, served inline', content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } } },
        '403': { description: 'Signature missing, wrong or expired', ...json(ErrorBody) },
        '404': { description: 'Unknown or deleted result', ...json(ErrorBody) },
      },
    },
  },
};

let cached: ReturnType<typeof createDocument> | null = null;

/** Built from the same zod schemas that validate requests, so the document cannot drift from the code. */
export const openApiDocument = () => {
  cached ??= createDocument({
    openapi: '3.1.0',
    info: { title: 'Rendering Service API', version: '2.0.0' },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    security: [{ apiKey: [] }],
    paths,
  });
  return cached;
};
