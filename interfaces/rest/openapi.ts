import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { MAX_BATCH_ROWS } from '../../domain/batches/batch-decider.js';
import { isAsynchronousFormat, OUTPUT_FORMATS, outputContentType } from '../../domain/renders/output-formats.js';
import { AuditBatchParams, AuditHistoryPage, AuditHistoryQuery, AuditTemplateParams, BatchHistorySchema, AuditTemplateQuery, AuditUploadsQuery, TemplateSnapshotSchema, UploadHistoryRowSchema } from '../schemas/audit-schemas.js';
import { BatchBody, BatchForm, BatchIdParam, BatchPage, BatchSchema, ListBatchesQuery, SubmittedBatchSchema } from '../schemas/batch-schemas.js';
import { ErrorBody, IdParam, VersionParams } from '../schemas/common.js';
import { ComponentDocumentBody } from '../schemas/component-schemas.js';
import { RenderBody, RenderQuery, RenderResponse } from '../schemas/render-schemas.js';
import { CaptureResponse, PdfBody, RequestRecord, RequestsQuery, ScreenshotBody, V1RenderBody, V1RenderQuery, V1RenderResponse } from '../schemas/v1-schemas.js';
import {
  CustomFont,
  FileParams,
  FileQuery,
  Font,
  FontIdParam,
  FontUploadForm,
  ImageUploadForm,
  ListResultsQuery,
  ListUploadsQuery,
  ResultDetail,
  ResultIdParam,
  ResultPage,
  Upload,
  UploadIdParam,
  UploadPage,
  Usage,
} from '../schemas/result-schemas.js';
import {
  NewSigningSecret,
  PatchSettingsBody,
  Settings,
  SignedUrlBody,
  SignedUrlResponse,
  SigningKey,
  SigningKeyIdParam,
} from '../schemas/url-signing-schemas.js';
import {
  CreateTemplateBody,
  CreateTemplateV1Body,
  HtmlContentBody,
  ListTemplatesQuery,
  ListTemplateVersionsQuery,
  PatchTemplateBody,
  PublishTemplateBody,
  TemplateSchema,
  TemplateContent,
  TemplateVersionDetail,
  TemplateVersionPage,
} from '../schemas/template-schemas.js';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

const errors = Object.fromEntries(
  [
    [400, 'Invalid input; errors lists each problem'],
    [402, 'Not enough credits, or upload storage full'],
    [403, 'Missing or invalid API key, or a scope it lacks (account administration needs the admin scope); on GET /img also a signed URL that is expired, tampered with or signed by an unknown or revoked key'],
    [404, 'Unknown resource or route'],
    [409, 'The resource is not in a state that allows this (a pending render cannot be deleted)'],
    [413, 'Body too large'],
    [429, 'Too many requests for this API key; see Retry-After and the RateLimit headers'],
    [431, 'URL or headers too large'],
    [500, 'Unexpected error'],
    [503, 'Temporarily unavailable; see Retry-After'],
  ].map(([status, description]) => [String(status), { description: String(description), ...json(ErrorBody) }]),
);

type Tag = 'templates' | 'renders' | 'batches' | 'results' | 'captures' | 'account' | 'uploads' | 'audit' | 'files' | 'signed-urls';

const TAGS: { name: Tag; description: string }[] = [
  { name: 'templates', description: 'Stored templates: settings, html content, canvas components' },
  { name: 'renders', description: 'Rendering templates into images, PDFs and videos' },
  {
    name: 'batches',
    description:
      'An extension of this service: many renders of one template from rows of data (JSON or CSV), run durably below interactive requests, watched as they go, collected as a ZIP or one merged PDF',
  },
  { name: 'results', description: 'Rendered results and their files' },
  { name: 'captures', description: 'Screenshots and PDFs of web pages' },
  { name: 'account', description: 'Usage, plan and fonts' },
  { name: 'uploads', description: "The organization's own fonts and images, for its templates" },
  { name: 'audit', description: 'History replayed from the event log' },
  { name: 'files', description: 'Rendered files at their links' },
  {
    name: 'signed-urls',
    description:
      'An extension of this service: GET /img URLs signed with a URL-signing key instead of carrying the API key, for <img> and og:image tags in published pages; the keys that sign them',
  },
];

/** One operation: its id (what generated clients name their methods), tag, summary and 200 answer. */
const operation = (
  operationId: string,
  tag: Tag,
  summary: string,
  okDescription: string,
  okSchema: z.ZodType | null,
  extra: Partial<ZodOpenApiOperationObject> = {},
): ZodOpenApiOperationObject => ({
  operationId,
  tags: [tag],
  summary,
  ...extra,
  responses: { '200': { description: okDescription, ...(okSchema ? json(okSchema) : {}) }, ...errors, ...extra.responses },
});

const binary = (contentTypes: readonly string[]) =>
  Object.fromEntries(contentTypes.map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }]));

/** What output=image answers with: the file of any render the client waits for. */
const waitedForContentTypes = OUTPUT_FORMATS.filter((format) => !isAsynchronousFormat(format)).map(outputContentType);

const paths: ZodOpenApiPathsObject = {
  '/api/v2/my-templates': {
    get: operation('listTemplates', 'templates', 'List templates', 'Templates of the caller', z.array(TemplateSchema), { requestParams: { query: ListTemplatesQuery } }),
    post: operation('createTemplate', 'templates', 'Create an empty template', 'The new template', TemplateSchema, { requestBody: json(CreateTemplateBody) }),
  },
  '/api/v1/templates': {
    post: operation('createTemplateV1', 'templates', 'Create an empty template (v1)', 'The new template', TemplateSchema, { requestBody: json(CreateTemplateV1Body) }),
  },
  '/api/v2/my-templates/{templateId}': {
    get: operation('getTemplate', 'templates', 'Read a template', 'The template', TemplateSchema, { requestParams: { path: IdParam } }),
    patch: operation('updateTemplate', 'templates', 'Change template settings', 'The template after the change', TemplateSchema, {
      requestParams: { path: IdParam },
      requestBody: json(PatchTemplateBody),
    }),
    delete: operation('deleteTemplate', 'templates', 'Delete a template (soft)', 'Deleted', null, { requestParams: { path: IdParam } }),
  },
  '/api/v2/my-templates/{templateId}/html-editor': {
    get: operation('getHtmlContent', 'templates', 'Read html-editor content', 'The content', TemplateContent, { requestParams: { path: IdParam } }),
    put: operation('replaceHtmlContent', 'templates', 'Replace html-editor content', 'The content as persisted', TemplateContent, {
      requestParams: { path: IdParam },
      requestBody: json(HtmlContentBody),
    }),
  },
  '/api/v2/my-templates/{templateId}/components': {
    get: operation('getComponents', 'templates', 'Read the components of a canvas-editor or canvas-html template (400 for html-editor)', 'The component document', ComponentDocumentBody, {
      requestParams: { path: IdParam },
    }),
    put: operation(
      'replaceComponents',
      'templates',
      'Replace the components of a canvas-editor or canvas-html template (400 for html-editor); the template properties follow from them',
      'The component document as persisted',
      ComponentDocumentBody,
      { requestParams: { path: IdParam }, requestBody: json(ComponentDocumentBody) },
    ),
  },
  '/api/v2/my-templates/{templateId}/versions': {
    get: operation(
      'listTemplateVersions',
      'templates',
      'An extension of this service: list the versions of a template, newest first (1 is the template as created; every change of settings, content or components makes the next)',
      'One page of versions',
      TemplateVersionPage,
      { requestParams: { path: IdParam, query: ListTemplateVersionsQuery } },
    ),
  },
  '/api/v2/my-templates/{templateId}/versions/{version}': {
    get: operation('getTemplateVersion', 'templates', 'An extension of this service: read a template as one version had it, content or components included (404 for a version it never had)', 'The template at that version', TemplateVersionDetail, {
      requestParams: { path: VersionParams },
    }),
  },
  '/api/v2/my-templates/{templateId}/versions/{version}/restore': {
    post: operation('restoreTemplateVersion', 'templates', 'An extension of this service: make a new version equal to an old one (nothing changes when the template already equals it; 404 for a version it never had)', 'The template after the restore', TemplateSchema, {
      requestParams: { path: VersionParams },
    }),
  },
  '/api/v2/my-templates/{templateId}/publish': {
    post: operation('publishTemplateVersion', 'templates', 'An extension of this service: publish a version (the latest without a body); renders without templateVersion use it while edits go on', 'The template, with its publishedVersion', TemplateSchema, {
      requestParams: { path: IdParam },
      requestBody: { required: false, ...json(PublishTemplateBody) },
    }),
  },
  '/api/v2/results': {
    get: operation('listResults', 'results', 'List render results, newest first', 'One page of results', ResultPage, { requestParams: { query: ListResultsQuery } }),
  },
  '/api/v2/results/{identifier}': {
    get: operation('getResult', 'results', 'Read a render result (poll it for video renders)', 'The result', ResultDetail, { requestParams: { path: ResultIdParam } }),
    delete: operation('deleteResult', 'results', 'Delete a render result and its file', 'Deleted', null, { requestParams: { path: ResultIdParam } }),
  },
  '/api/v2/render': {
    post: operation('render', 'renders', 'Render a template', 'Images and PDFs: requestId and href, or with output=image the file itself', RenderResponse, {
      requestParams: { query: RenderQuery },
      requestBody: json(RenderBody),
      responses: {
        '200': {
          description: 'Images and PDFs: requestId and href (at once when a webhookUrl is given); with output=image the file itself',
          content: { ...json(RenderResponse).content, ...binary(waitedForContentTypes) },
        },
        '202': { description: 'Videos (mp4, webm): accepted with status pending (done when answered from the cache); poll GET /api/v2/results/{identifier}', ...json(RenderResponse) },
      },
    }),
  },
  '/img/{templateId}.jpg': {
    get: {
      operationId: 'renderImageFromQuery',
      tags: ['renders', 'signed-urls'],
      summary: 'Render a template as an image from query values: with apiKey in the query, or signed (no API key)',
      description:
        'Every query pair but apiKey, expires, keyId and signature sets one template value: a merge field, or <componentId>.<property> of a canvas template. ' +
        'The spec form takes apiKey (refused with 403 when the organization turned apiKeyInQuery off, see /api/v2/account/settings). ' +
        'The signed form, an extension of this service, takes expires, keyId and signature instead: signature is the lowercase hex HMAC-SHA256, keyed with the ' +
        'URL-signing secret, of four lines joined by "\\n": the path (/img/<templateId>.<ext>, templateId RFC 3986-encoded), the other pairs RFC 3986-encoded as ' +
        'name=value, sorted by name then value and joined by "&", expires, keyId. An expired, tampered, unknown or revoked one, one that names a value twice or ' +
        'expires more than 366 days ahead is a 403 that records and charges nothing. A signed URL records its first render only: later views answered from the ' +
        'render cache record nothing. Views of signed URLs are limited per client address (429). ' +
        'The path may end in .png or .webp instead of .jpg (an extension of this service). Answers carry an ETag (If-None-Match with it gets 304) and ' +
        'Cache-Control: public, max-age up to an hour (or the expiry when sooner) for signed URLs, private, no-cache for apiKey ones.',
      requestParams: { path: z.object({ templateId: z.string() }) },
      parameters: [
        { in: 'query', name: 'apiKey', required: false, description: 'The spec form: the API key. Not with a signature', schema: { type: 'string' } },
        { in: 'query', name: 'expires', required: false, description: 'Signed form: unix seconds after which the URL answers 403', schema: { type: 'string', pattern: '^[1-9][0-9]{0,11}$' } },
        { in: 'query', name: 'keyId', required: false, description: 'Signed form: the identifier of the URL-signing key', schema: { type: 'string' } },
        { in: 'query', name: 'signature', required: false, description: 'Signed form: lowercase hex HMAC-SHA256 of the canonical form', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        {
          in: 'query',
          name: 'values',
          description: 'Any other pairs: template values by name',
          style: 'form',
          explode: true,
          schema: { type: 'object', additionalProperties: { type: 'string' } },
        },
        { in: 'header', name: 'If-None-Match', required: false, description: 'An ETag of an earlier answer: 304 when the image is the same', schema: { type: 'string' } },
      ],
      security: [],
      responses: {
        '200': { description: 'The image', content: binary([outputContentType('jpeg'), outputContentType('png'), outputContentType('webp')]) },
        '304': { description: 'Not modified: the image is the one the If-None-Match tag names' },
        ...errors,
      },
    },
  },
  '/api/v2/url-signing-keys': {
    get: operation('listUrlSigningKeys', 'signed-urls', "The organization's URL-signing keys, revoked ones included, oldest first; never a secret", 'The keys', z.array(SigningKey)),
    post: operation(
      'createUrlSigningKey',
      'signed-urls',
      'Create a URL-signing key; its secret is in this answer only (the service keeps it encrypted)',
      'The key and its secret',
      NewSigningSecret,
      { description: 'At most 10 active keys per organization (400 beyond).' },
    ),
  },
  '/api/v2/url-signing-keys/{identifier}': {
    get: operation('getUrlSigningKey', 'signed-urls', 'Read one URL-signing key, without its secret', 'The key', SigningKey, { requestParams: { path: SigningKeyIdParam } }),
    post: operation(
      'rotateUrlSigningKey',
      'signed-urls',
      'Rotate a URL-signing key: a new secret under the same identifier; URLs signed with the old secret answer 403 from now on',
      'The key and its new secret',
      NewSigningSecret,
      { requestParams: { path: SigningKeyIdParam }, description: 'A revoked key cannot be rotated (409). To move published URLs without a gap, create a second key, re-sign, then revoke the first.' },
    ),
    delete: operation('revokeUrlSigningKey', 'signed-urls', 'Revoke a URL-signing key: every URL it signed answers 403', 'Revoked', null, { requestParams: { path: SigningKeyIdParam } }),
  },
  '/api/v2/signed-urls': {
    post: operation('signImageUrl', 'signed-urls', 'A signed GET /img URL for a template, signed by the service (for clients that do not sign themselves)', 'The absolute URL and when it expires', SignedUrlResponse, {
      requestBody: json(SignedUrlBody),
      description: "The URL is on the service's public base URL (PUBLIC_BASE_URL) and is the same one a client signing with the key's secret would make.",
    }),
  },
  '/api/v2/account/settings': {
    get: operation('getAccountSettings', 'account', "The organization's settings (an extension of this service)", 'The settings', Settings),
    patch: operation('updateAccountSettings', 'account', "Change the organization's settings; only the fields given change (an extension of this service)", 'The settings after the change', Settings, {
      requestBody: json(PatchSettingsBody),
    }),
  },
  '/api/v1/screenshots': {
    post: operation('takeScreenshot', 'captures', 'Screenshot a web page: an image of exactly width x height, or of the whole page (fullPage) or one element (selector)', 'requestId, href and the request as sent', CaptureResponse, {
      requestBody: json(ScreenshotBody),
    }),
  },
  '/api/v1/pdf': {
    post: operation('printPdf', 'captures', 'Print a web page to PDF on the given paper size', 'requestId, href and the request as sent', CaptureResponse, { requestBody: json(PdfBody) }),
  },
  '/api/v1/render': {
    post: operation('renderV1', 'renders', 'Render a template (deprecated: use POST /api/v2/render)', 'requestId and href', V1RenderResponse, {
      deprecated: true,
      requestParams: { query: V1RenderQuery },
      requestBody: json(V1RenderBody),
    }),
  },
  '/api/v1/requests': {
    get: operation('listRequestsV1', 'results', 'List renders and captures, newest first (deprecated: use GET /api/v2/results)', 'Request records', z.array(RequestRecord), {
      deprecated: true,
      requestParams: { query: RequestsQuery },
    }),
  },
  '/api/v1/usage': {
    get: operation('getUsage', 'account', 'Credits, upload storage and plan of the organization', 'The usage summary', Usage),
  },
  '/api/v2/audit/history': {
    get: operation('getAuditHistory', 'audit', 'Render history replayed from the event log (audit scope)', 'One page of history rows, in request order', AuditHistoryPage, {
      requestParams: { query: AuditHistoryQuery },
    }),
  },
  '/api/v2/audit/uploads': {
    get: operation(
      'getUploadHistory',
      'audit',
      "Every font and image the organization uploaded, who uploaded and deleted it and when, replayed from the event log (audit scope), a page at a time",
      'One row per upload, in upload order; the X-Total-Count header tells how many there are',
      z.array(UploadHistoryRowSchema),
      { requestParams: { query: AuditUploadsQuery } },
    ),
  },
  '/api/v2/audit/templates/{templateId}': {
    get: operation('getTemplateAt', 'audit', 'A template exactly as it was at a moment (audit scope)', 'The template at that moment', TemplateSnapshotSchema, {
      requestParams: { path: AuditTemplateParams, query: AuditTemplateQuery },
    }),
  },
  '/api/v2/audit/batches/{batchId}': {
    get: operation(
      'getBatchHistory',
      'audit',
      "A batch's history from its own stream: what it was asked with, rows refused, its cancellation and the counts it ended with (audit scope); its rows' renders are in the history with `batch`",
      'The batch history',
      BatchHistorySchema,
      { requestParams: { path: AuditBatchParams } },
    ),
  },
  '/api/v1/fonts': {
    get: operation('listFonts', 'account', "Fonts available to renders: the machine's families, then the organization's uploaded fonts", 'Every font', z.array(z.union([CustomFont, Font]))),
    post: operation(
      'uploadFont',
      'uploads',
      'Upload a font (TTF, OTF, WOFF or WOFF2, at most 10 MB); templates of the organization use it by its family',
      'The uploaded font',
      CustomFont,
      {
        description:
          'The font is parsed whole before anything is stored: a file that is not a font, or a truncated or malformed one, is a 400 and stores nothing. ' +
          'Its bytes count in uploads.used; past uploads.total the upload is a 402. The family must be letters, digits, spaces and _ . , \' & + ( ) - only.',
        requestBody: { content: { 'multipart/form-data': { schema: FontUploadForm } } },
      },
    ),
  },
  '/api/v1/fonts/{identifier}': {
    delete: operation('deleteFont', 'uploads', 'Delete an uploaded font; its bytes leave uploads.used and new renders no longer find it', 'Deleted', null, {
      requestParams: { path: FontIdParam },
    }),
  },
  '/api/v2/batches': {
    get: operation('listBatches', 'batches', "The organization's batches, newest first", 'One page of batches', BatchPage, { requestParams: { query: ListBatchesQuery } }),
    post: {
      operationId: 'submitBatch',
      tags: ['batches'],
      summary: 'Render a template once per row of data',
      description:
        `A JSON body with rows, or multipart/form-data with file = a CSV (RFC 4180, UTF-8 with or without a byte order mark, at most 20 MB): its header row names ` +
        `the template's properties (canvas) or merge fields (html-editor), and an optional fileName column names each row's file; an empty cell leaves the value out; ` +
        `the other fields as form fields. At most ${MAX_BATCH_ROWS} rows. Every row is checked as a single render would be, and a key or column the template does not use ` +
        `is refused too: a bad batch is one 400 naming up to 20 bad rows by number (from 1) and column, with nothing recorded. The rows cost what their renders cost ` +
        `(one credit an image, video by the second; cache hits free), and the account must hold that much (402 otherwise). Each row is a render of its own, listed ` +
        `by GET /api/v2/results?batch=<name> and charged once however often it is retried.`,
      requestBody: { content: { 'application/json': { schema: BatchBody }, 'multipart/form-data': { schema: BatchForm } } },
      responses: { '202': { description: 'Accepted: the batch is recorded and its rows will render', ...json(SubmittedBatchSchema) }, ...errors },
    },
  },
  '/api/v2/batches/{identifier}': {
    get: operation('getBatch', 'batches', 'A batch and how far its rows got', 'The batch', BatchSchema, { requestParams: { path: BatchIdParam } }),
    delete: operation('cancelBatch', 'batches', 'Cancel the rows of a batch not started yet (never charged); rows rendering now finish', 'The batch as it stands', BatchSchema, {
      requestParams: { path: BatchIdParam },
      description: 'Cancelling a cancelled batch again changes nothing; an ended batch is a 409.',
    }),
  },
  '/api/v2/batches/{identifier}/zip': {
    get: {
      operationId: 'downloadBatchZip',
      tags: ['batches'],
      summary: 'A ZIP of the files the batch made so far, streamed, with manifest.csv (row, requestId, status, fileName, reason)',
      requestParams: { path: BatchIdParam },
      responses: { '200': { description: 'The ZIP', content: binary(['application/zip']) }, ...errors },
    },
  },
  '/api/v2/batches/{identifier}/merged.pdf': {
    get: {
      operationId: 'downloadBatchMergedPdf',
      tags: ['batches'],
      summary: 'A merged batch: one PDF of every row that made a file, in row order, one outline entry per row',
      requestParams: { path: BatchIdParam },
      responses: { '200': { description: 'The PDF', content: binary(['application/pdf']) }, ...errors },
    },
  },
  '/api/v2/uploads': {
    get: operation('listUploads', 'uploads', "The organization's uploaded images, newest first", 'One page of uploads', UploadPage, { requestParams: { query: ListUploadsQuery } }),
    post: operation('uploadImage', 'uploads', 'Upload an image (PNG, JPEG, WebP, GIF or SVG, at most 20 MB; an SVG at most 5 MB) to use in templates', 'The uploaded image', Upload, {
      description:
        'The type is sniffed from the bytes; the image must decode within the pixels one render may paint (50 million). ' +
        'SVGs are stored without scripts, event handlers and external references. The href works as an image source in the ' +
        "organization's templates in every format (renders read it from storage, never over the network); another organization's renders cannot load it. " +
        'Its bytes count in uploads.used; past uploads.total the upload is a 402.',
      requestBody: { content: { 'multipart/form-data': { schema: ImageUploadForm } } },
    }),
  },
  '/api/v2/uploads/{identifier}': {
    delete: operation('deleteUpload', 'uploads', 'Delete an uploaded image; its bytes leave uploads.used and new renders no longer show it', 'Deleted', null, {
      requestParams: { path: UploadIdParam },
    }),
  },
  '/api/v2/uploads/{identifier}/file': {
    get: operation('getUploadFile', 'uploads', "An uploaded image's bytes (the upload's href)", 'The image', null, {
      requestParams: { path: UploadIdParam },
      responses: { '200': { description: 'The image', content: binary(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml']) } },
    }),
  },
  '/files/{requestId}/{fileName}': {
    get: {
      operationId: 'getFile',
      tags: ['files'],
      summary: 'A rendered file at its href; no API key, expiring links carry expires and signature',
      security: [],
      requestParams: { path: FileParams, query: FileQuery },
      responses: {
        '200': { description: 'The file, served inline', content: binary(['application/octet-stream']) },
        '403': { description: 'Signature missing, wrong or expired', ...json(ErrorBody) },
        '404': { description: 'Unknown or deleted result', ...json(ErrorBody) },
      },
    },
  },
};

let cached: ReturnType<typeof createDocument> | null = null;

/** Built from the same zod schemas that validate requests, so the document cannot drift from the code. */
export const openApiDocument = () => {
  cached ??= createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'Rendering Service API', version: '2.0.0', license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
      // Relative: the document is served by the service it describes, wherever that runs.
      servers: [{ url: '/', description: 'This service' }],
      tags: TAGS,
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
      paths,
    },
    {
      // Answers may gain fields: clients generated from the document must tolerate them, so only
      // request bodies stay closed (unknown fields there are refused).
      override: ({ jsonSchema, io }) => {
        if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      },
    },
  );
  return cached;
};
