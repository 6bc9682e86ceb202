import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { IdParam, VersionParams } from '../schemas/common.js';
import { parseComponentDocument } from '../schemas/component-schemas.js';
import {
  CreateTemplateBody,
  CreateTemplateV1Body,
  HtmlContentBody,
  ListTemplatesQuery,
  ListTemplateVersionsQuery,
  PatchTemplateBody,
  PublishTemplateBody,
} from '../schemas/template-schemas.js';
import { contextOf } from './request-context.js';

export const templatesRouter = ({ templates }: AppServices): Router => {
  const router = Router();

  router.get('/v2/my-templates', async (req, res) => {
    res.json(await templates.list(contextOf(res), parseInput(ListTemplatesQuery, req.query, 'query')));
  });

  router.post('/v2/my-templates', async (req, res) => {
    res.json(await templates.create(contextOf(res), parseInput(CreateTemplateBody, req.body, 'body')));
  });

  router.post('/v1/templates', async (req, res) => {
    res.json(await templates.create(contextOf(res), parseInput(CreateTemplateV1Body, req.body, 'body')));
  });

  router.get('/v2/my-templates/:templateId', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.get(contextOf(res), templateId));
  });

  router.patch('/v2/my-templates/:templateId', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.update(contextOf(res), templateId, parseInput(PatchTemplateBody, req.body, 'body')));
  });

  router.delete('/v2/my-templates/:templateId', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    await templates.remove(contextOf(res), templateId);
    res.status(200).end();
  });

  router.get('/v2/my-templates/:templateId/html-editor', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.getHtmlContent(contextOf(res), templateId));
  });

  router.put('/v2/my-templates/:templateId/html-editor', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.replaceHtmlContent(contextOf(res), templateId, parseInput(HtmlContentBody, req.body, 'body')));
  });

  router.get('/v2/my-templates/:templateId/components', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.getComponents(contextOf(res), templateId));
  });

  router.put('/v2/my-templates/:templateId/components', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.replaceComponents(contextOf(res), templateId, parseComponentDocument(req.body)));
  });

  router.get('/v2/my-templates/:templateId/versions', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    res.json(await templates.listVersions(contextOf(res), templateId, parseInput(ListTemplateVersionsQuery, req.query, 'query')));
  });

  router.get('/v2/my-templates/:templateId/versions/:version', async (req, res) => {
    const { templateId, version } = parseInput(VersionParams, req.params, 'path');
    res.json(await templates.getVersion(contextOf(res), templateId, version));
  });

  router.post('/v2/my-templates/:templateId/versions/:version/restore', async (req, res) => {
    const { templateId, version } = parseInput(VersionParams, req.params, 'path');
    res.json(await templates.restore(contextOf(res), templateId, version));
  });

  router.post('/v2/my-templates/:templateId/publish', async (req, res) => {
    const { templateId } = parseInput(IdParam, req.params, 'path');
    // The body is optional: publishing without one publishes the latest version.
    const { version } = parseInput(PublishTemplateBody, req.body ?? {}, 'body');
    res.json(await templates.publish(contextOf(res), templateId, version));
  });

  return router;
};
