import { Router } from 'express';
import type { AppServices } from '../http/app-services.js';
import { parseInput } from '../http/parse-input.js';
import { AuditBatchParams, AuditHistoryQuery, AuditTemplateParams, AuditTemplateQuery, AuditUploadsQuery } from '../schemas/audit-schemas.js';
import { contextOf } from './request-context.js';

const asDate = (moment: string | undefined) => (moment === undefined ? undefined : new Date(moment));

/** The render history, past template states, uploads and batches, replayed from the event log, for keys with the audit scope. */
export const auditRouter = ({ audit }: AppServices): Router => {
  const router = Router();

  router.get('/v2/audit/history', async (req, res) => {
    const { from, to, template, batch, page, size } = parseInput(AuditHistoryQuery, req.query, 'query');
    res.json(await audit.historyPage(contextOf(res), { from: asDate(from), to: asDate(to), templateId: template, batchId: batch, page, size }));
  });

  router.get('/v2/audit/uploads', async (req, res) => {
    const { items, total } = await audit.uploadHistory(contextOf(res), parseInput(AuditUploadsQuery, req.query, 'query'));
    res.setHeader('X-Total-Count', String(total));
    res.json(items);
  });

  router.get('/v2/audit/templates/:templateId', async (req, res) => {
    const { templateId } = parseInput(AuditTemplateParams, req.params, 'path');
    const { at } = parseInput(AuditTemplateQuery, req.query, 'query');
    res.json(await audit.templateAt(contextOf(res), templateId, new Date(at)));
  });

  router.get('/v2/audit/batches/:batchId', async (req, res) => {
    res.json(await audit.batchHistory(contextOf(res), parseInput(AuditBatchParams, req.params, 'path').batchId));
  });

  return router;
};
