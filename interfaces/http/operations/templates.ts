import { z } from 'zod';
import { IdParam, VersionParams } from '../../schemas/common.js';
import { ComponentDocumentBody, parseComponentDocument } from '../../schemas/component-schemas.js';
import {
  CreateTemplateBody,
  CreateTemplateV1Body,
  HtmlContentBody,
  ListTemplatesQuery,
  ListTemplateVersionsQuery,
  PatchTemplateBody,
  PublishTemplateBody,
  TemplateContent,
  TemplateSchema,
  TemplateVersionDetail,
  TemplateVersionPage,
} from '../../schemas/template-schemas.js';
import { operation } from '../operation.js';

const tags = ['templates'] as const;

export const listTemplates = operation({
  id: 'listTemplates',
  method: 'get',
  path: '/api/v2/my-templates',
  tags,
  summary: 'List templates',
  input: { query: ListTemplatesQuery },
  answer: { description: 'Templates of the caller', schema: z.array(TemplateSchema) },
  call: ({ templates }, context, { query }) => templates.list(context, query),
});

export const createTemplate = operation({
  id: 'createTemplate',
  method: 'post',
  path: '/api/v2/my-templates',
  tags,
  summary: 'Create an empty template',
  input: { body: CreateTemplateBody },
  answer: { description: 'The new template', schema: TemplateSchema },
  call: ({ templates }, context, { body }) => templates.create(context, body),
});

export const createTemplateV1 = operation({
  id: 'createTemplateV1',
  method: 'post',
  path: '/api/v1/templates',
  tags,
  summary: 'Create an empty template (v1)',
  input: { body: CreateTemplateV1Body },
  answer: { description: 'The new template', schema: TemplateSchema },
  call: ({ templates }, context, { body }) => templates.create(context, body),
});

export const getTemplate = operation({
  id: 'getTemplate',
  method: 'get',
  path: '/api/v2/my-templates/{templateId}',
  tags,
  summary: 'Read a template',
  input: { path: IdParam },
  answer: { description: 'The template', schema: TemplateSchema },
  call: ({ templates }, context, { path }) => templates.get(context, path.templateId),
});

export const updateTemplate = operation({
  id: 'updateTemplate',
  method: 'patch',
  path: '/api/v2/my-templates/{templateId}',
  tags,
  summary: 'Change template settings',
  input: { path: IdParam, body: PatchTemplateBody },
  answer: { description: 'The template after the change', schema: TemplateSchema },
  call: ({ templates }, context, { path, body }) => templates.update(context, path.templateId, body),
});

export const deleteTemplate = operation({
  id: 'deleteTemplate',
  method: 'delete',
  path: '/api/v2/my-templates/{templateId}',
  tags,
  summary: 'Delete a template (soft)',
  input: { path: IdParam },
  answer: { description: 'Deleted' },
  call: ({ templates }, context, { path }) => templates.remove(context, path.templateId),
});

export const getHtmlContent = operation({
  id: 'getHtmlContent',
  method: 'get',
  path: '/api/v2/my-templates/{templateId}/html-editor',
  tags,
  summary: 'Read html-editor content',
  input: { path: IdParam },
  answer: { description: 'The content', schema: TemplateContent },
  call: ({ templates }, context, { path }) => templates.getHtmlContent(context, path.templateId),
});

export const replaceHtmlContent = operation({
  id: 'replaceHtmlContent',
  method: 'put',
  path: '/api/v2/my-templates/{templateId}/html-editor',
  tags,
  summary: 'Replace html-editor content',
  input: { path: IdParam, body: HtmlContentBody },
  answer: { description: 'The content as persisted', schema: TemplateContent },
  call: ({ templates }, context, { path, body }) => templates.replaceHtmlContent(context, path.templateId, body),
});

export const getComponents = operation({
  id: 'getComponents',
  method: 'get',
  path: '/api/v2/my-templates/{templateId}/components',
  tags,
  summary: 'Read the components of a canvas-editor or canvas-html template (400 for html-editor)',
  input: { path: IdParam },
  answer: { description: 'The component document', schema: ComponentDocumentBody },
  call: ({ templates }, context, { path }) => templates.getComponents(context, path.templateId),
});

export const replaceComponents = operation({
  id: 'replaceComponents',
  method: 'put',
  path: '/api/v2/my-templates/{templateId}/components',
  tags,
  summary: 'Replace the components of a canvas-editor or canvas-html template (400 for html-editor); the template properties follow from them',
  input: { path: IdParam, body: ComponentDocumentBody },
  // Refusals name each component and field, beyond what the schema's own messages say.
  parseBody: parseComponentDocument,
  answer: { description: 'The component document as persisted', schema: ComponentDocumentBody },
  call: ({ templates }, context, { path, body }) => templates.replaceComponents(context, path.templateId, body),
});

export const listTemplateVersions = operation({
  id: 'listTemplateVersions',
  method: 'get',
  path: '/api/v2/my-templates/{templateId}/versions',
  tags,
  summary:
    'An extension of this service: list the versions of a template, newest first (1 is the template as created; every change of settings, content or components makes the next)',
  input: { path: IdParam, query: ListTemplateVersionsQuery },
  answer: { description: 'One page of versions', schema: TemplateVersionPage },
  call: ({ templates }, context, { path, query }) => templates.listVersions(context, path.templateId, query),
});

export const getTemplateVersion = operation({
  id: 'getTemplateVersion',
  method: 'get',
  path: '/api/v2/my-templates/{templateId}/versions/{version}',
  tags,
  summary: 'An extension of this service: read a template as one version had it, content or components included (404 for a version it never had)',
  input: { path: VersionParams },
  answer: { description: 'The template at that version', schema: TemplateVersionDetail },
  call: ({ templates }, context, { path }) => templates.getVersion(context, path.templateId, path.version),
});

export const restoreTemplateVersion = operation({
  id: 'restoreTemplateVersion',
  method: 'post',
  path: '/api/v2/my-templates/{templateId}/versions/{version}/restore',
  tags,
  summary: 'An extension of this service: make a new version equal to an old one (nothing changes when the template already equals it; 404 for a version it never had)',
  input: { path: VersionParams },
  answer: { description: 'The template after the restore', schema: TemplateSchema },
  call: ({ templates }, context, { path }) => templates.restore(context, path.templateId, path.version),
});

export const publishTemplateVersion = operation({
  id: 'publishTemplateVersion',
  method: 'post',
  path: '/api/v2/my-templates/{templateId}/publish',
  tags,
  summary: 'An extension of this service: publish a version (the latest without a body); renders without templateVersion use it while edits go on',
  input: { path: IdParam, body: PublishTemplateBody, bodyOptional: true },
  answer: { description: 'The template, with its publishedVersion', schema: TemplateSchema },
  call: ({ templates }, context, { path, body }) => templates.publish(context, path.templateId, body.version),
});
