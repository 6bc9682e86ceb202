import { z } from 'zod';
import type { AppServices } from '../http/app-services.js';
import { getAccountSettings, getUsage, listFonts, updateAccountSettings, deleteFont } from '../http/operations/account.js';
import { getAuditHistory, getBatchHistory, getTemplateAt } from '../http/operations/audit.js';
import { cancelBatch, getBatch, listBatches, submitBatch } from '../http/operations/batches.js';
import { printPdf, takeScreenshot } from '../http/operations/captures.js';
import { render, renderJsonAnswer } from '../http/operations/renders.js';
import { deleteResult, getResult, listResults } from '../http/operations/results.js';
import { createUrlSigningKey, getUrlSigningKey, listUrlSigningKeys, revokeUrlSigningKey, rotateUrlSigningKey, signImageUrl } from '../http/operations/signed-urls.js';
import {
  createTemplate,
  deleteTemplate,
  getComponents,
  getHtmlContent,
  getTemplate,
  getTemplateVersion,
  listTemplates,
  listTemplateVersions,
  publishTemplateVersion,
  replaceComponents,
  replaceHtmlContent,
  restoreTemplateVersion,
  updateTemplate,
} from '../http/operations/templates.js';
import { deleteUpload, listUploads } from '../http/operations/uploads.js';
import { proceduresOf } from './procedures.js';
import { authedProcedure, router } from './trpc.js';

const deleted = () => ({ deleted: true as const });

/** The operations of the REST API (interfaces/http/operations) by the names internal consumers call them, and a few of tRPC's own. */
export const createAppRouter = (services: AppServices) => {
  const { query, mutation } = proceduresOf(services);
  const { accounts } = services;
  return router({
    templates: router({
      list: query(listTemplates),
      get: query(getTemplate),
      create: mutation(createTemplate),
      update: mutation(updateTemplate, { bodyAs: 'changes' }),
      delete: mutation(deleteTemplate, { answer: deleted }),
      getHtml: query(getHtmlContent),
      putHtml: mutation(replaceHtmlContent, { bodyAs: 'content' }),
      getComponents: query(getComponents),
      putComponents: mutation(replaceComponents, { bodyAs: 'document' }),
      versions: query(listTemplateVersions),
      version: query(getTemplateVersion),
      publish: mutation(publishTemplateVersion),
      restore: mutation(restoreTemplateVersion),
    }),
    results: router({
      list: query(listResults),
      get: query(getResult),
      delete: mutation(deleteResult, { answer: deleted }),
    }),
    /** Renders and answers `{ requestId, href, cached?, status? }`, like POST /api/v2/render with output=json. */
    render: mutation(render, { answer: renderJsonAnswer }),
    account: router({
      /** The secret webhooks to the caller's organization are signed with. */
      webhookSecret: authedProcedure.input(z.void()).query(({ ctx }) => accounts.callerWebhookSecret(ctx.context)),
      /** A new secret; the previous one keeps signing alongside it for 24 hours. */
      // A mutation without input still arrives with an empty object from some clients.
      rotateWebhookSecret: authedProcedure.input(z.object({}).strict().optional()).mutation(({ ctx }) => accounts.rotateCallerWebhookSecret(ctx.context)),
      settings: query(getAccountSettings),
      changeSettings: mutation(updateAccountSettings),
      /** Keys that sign GET /img URLs; a secret is shown only by create and rotate. */
      urlSigningKeys: router({
        list: query(listUrlSigningKeys),
        get: query(getUrlSigningKey),
        create: mutation(createUrlSigningKey),
        rotate: mutation(rotateUrlSigningKey),
        revoke: mutation(revokeUrlSigningKey, { answer: () => ({ revoked: true as const }) }),
      }),
    }),
    /** A signed GET /img URL for a template, like POST /api/v2/signed-urls. */
    signedUrls: router({ create: mutation(signImageUrl) }),
    /** Screenshots and PDFs of web pages, answering `{ requestId, href, request }` like POST /api/v1/screenshots and /api/v1/pdf. */
    captures: router({ screenshot: mutation(takeScreenshot), pdf: mutation(printPdf) }),
    usage: router({ get: query(getUsage) }),
    /** Replayed from the event log; needs a key with the audit scope. */
    audit: router({
      history: query(getAuditHistory),
      templateAt: query(getTemplateAt),
      batch: query(getBatchHistory),
    }),
    fonts: router({ list: query(listFonts), delete: mutation(deleteFont) }),
    uploads: router({ list: query(listUploads), delete: mutation(deleteUpload) }),
    /** Batches of renders from rows of data, like /api/v2/batches (rows as JSON; a CSV goes over REST). */
    batches: router({
      submit: mutation(submitBatch),
      list: query(listBatches),
      get: query(getBatch),
      cancel: mutation(cancelBatch),
    }),
    ping: authedProcedure.input(z.void()).query(({ ctx }) => ({ orgId: ctx.context.caller.orgId })),
  });
};

export type AppRouter = ReturnType<typeof createAppRouter>;
