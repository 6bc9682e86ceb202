import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { IdParam } from '../schemas/common.js';
import { parseComponentDocument } from '../schemas/component-schemas.js';
import {
  CreateTemplateBody,
  CreateTemplateV1Body,
  HtmlContentBody,
  ListTemplatesQuery,
  PatchTemplateBody,
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

  return router;
};
