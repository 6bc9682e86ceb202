import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { ErrorBody } from '../schemas/common.js';
import { ALL_OPERATIONS } from '../http/operations/all-operations.js';
import { binaryContent, jsonContent, type AnyOperation, type Tag } from '../http/operation.js';

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
  ].map(([status, description]) => [String(status), { description: String(description), ...jsonContent(ErrorBody) }]),
);

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

/** The request body as the document says it: JSON by the body's schema, or a multipart form, or both. */
const requestBodyOf = ({ input }: AnyOperation): ZodOpenApiOperationObject['requestBody'] => {
  if (!input.body && !input.form) return undefined;
  return {
    ...(input.bodyOptional ? { required: false } : {}),
    content: {
      ...(input.body ? { 'application/json': { schema: input.body } } : {}),
      ...(input.form ? { 'multipart/form-data': { schema: input.form } } : {}),
    },
  };
};

const documented = (operation: AnyOperation): ZodOpenApiOperationObject => {
  const { answer, input, document = {} } = operation;
  const requestBody = requestBodyOf(operation);
  const answerContent = { ...(answer.schema ? jsonContent(answer.schema).content : {}), ...(answer.binary ? binaryContent(answer.binary) : {}) };
  return {
    operationId: operation.id,
    tags: [...operation.tags],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(input.path || input.query ? { requestParams: { ...(input.path ? { path: input.path } : {}), ...(input.query ? { query: input.query } : {}) } } : {}),
    ...(requestBody ? { requestBody } : {}),
    ...(operation.access === 'link' ? { security: [] } : {}),
    ...document,
    responses: {
      [String(answer.status ?? 200)]: { description: answer.description, ...(Object.keys(answerContent).length > 0 ? { content: answerContent } : {}) },
      ...errors,
      ...document.responses,
    },
  };
};

const pathsOf = (operations: readonly AnyOperation[]): ZodOpenApiPathsObject => {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of operations) paths[operation.path] = { ...paths[operation.path], [operation.method]: documented(operation) };
  return paths;
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
      paths: pathsOf(ALL_OPERATIONS),
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
