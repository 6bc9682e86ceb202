import { z } from 'zod';
import type { AppServices } from '../http/app-services.js';
import { BatchBody, BatchIdParam, ListBatchesQuery } from '../schemas/batch-schemas.js';
import { IdParam, VersionParams } from '../schemas/common.js';
import { RenderBody } from '../schemas/render-schemas.js';
import { ComponentDocumentBody, parseComponentDocument } from '../schemas/component-schemas.js';
import { PdfBody, ScreenshotBody } from '../schemas/v1-schemas.js';
import { FontIdParam, ListResultsQuery, ListUploadsQuery, ResultIdParam, UploadIdParam } from '../schemas/result-schemas.js';
import {
  CreateTemplateBody,
  HtmlContentBody,
  ListTemplatesQuery,
  ListTemplateVersionsQuery,
  PatchTemplateBody,
  PublishTemplateBody,
} from '../schemas/template-schemas.js';
import { PatchSettingsBody, SignedUrlBody, SigningKeyIdParam } from '../schemas/url-signing-schemas.js';
import { AuditBatchParams, AuditHistoryQuery, AuditTemplateParams, AuditTemplateQuery } from '../schemas/audit-schemas.js';
import { authedProcedure, router } from './trpc.js';

/** The same use cases as REST, typed end to end for internal consumers. */
export const createAppRouter = ({ templates, results, usage, fonts, uploads, renders, accounts, captures, audit, urlSigning, settings, batches }: AppServices) =>
  router({
    templates: router({
      list: authedProcedure
        .input(ListTemplatesQuery.partial().optional())
        .query(({ ctx, input }) => templates.list(ctx.context, { page: 0, size: 20, ...input })),
      get: authedProcedure.input(IdParam).query(({ ctx, input }) => templates.get(ctx.context, input.templateId)),
      create: authedProcedure.input(CreateTemplateBody).mutation(({ ctx, input }) => templates.create(ctx.context, input)),
      update: authedProcedure
        .input(IdParam.extend({ changes: PatchTemplateBody }))
        .mutation(({ ctx, input }) => templates.update(ctx.context, input.templateId, input.changes)),
      delete: authedProcedure.input(IdParam).mutation(async ({ ctx, input }) => {
        await templates.remove(ctx.context, input.templateId);
        return { deleted: true as const };
      }),
      getHtml: authedProcedure.input(IdParam).query(({ ctx, input }) => templates.getHtmlContent(ctx.context, input.templateId)),
      putHtml: authedProcedure
        .input(IdParam.extend({ content: HtmlContentBody }))
        .mutation(({ ctx, input }) => templates.replaceHtmlContent(ctx.context, input.templateId, input.content)),
      getComponents: authedProcedure.input(IdParam).query(({ ctx, input }) => templates.getComponents(ctx.context, input.templateId)),
      /** The document is typed by its schema and validated again as REST does, for the same per-component messages. */
      putComponents: authedProcedure
        .input(IdParam.extend({ document: ComponentDocumentBody }))
        .mutation(({ ctx, input }) => templates.replaceComponents(ctx.context, input.templateId, parseComponentDocument(input.document))),
      versions: authedProcedure
        .input(IdParam.extend(ListTemplateVersionsQuery.partial().shape))
        .query(({ ctx, input }) => templates.listVersions(ctx.context, input.templateId, { page: input.page ?? 0, size: input.size ?? 20 })),
      version: authedProcedure.input(VersionParams).query(({ ctx, input }) => templates.getVersion(ctx.context, input.templateId, input.version)),
      publish: authedProcedure
        .input(IdParam.extend(PublishTemplateBody.shape))
        .mutation(({ ctx, input }) => templates.publish(ctx.context, input.templateId, input.version)),
      restore: authedProcedure.input(VersionParams).mutation(({ ctx, input }) => templates.restore(ctx.context, input.templateId, input.version)),
    }),
    results: router({
      list: authedProcedure.input(ListResultsQuery.partial().optional()).query(({ ctx, input }) =>
        results.list(ctx.context, { templateId: input?.template, batchName: input?.batch, page: input?.page ?? 0, size: input?.size ?? 20 }),
      ),
      get: authedProcedure.input(ResultIdParam).query(({ ctx, input }) => results.get(ctx.context, input.identifier)),
      delete: authedProcedure.input(ResultIdParam).mutation(async ({ ctx, input }) => {
        await results.delete(ctx.context, input.identifier);
        return { deleted: true as const };
      }),
    }),
    /** Renders and answers `{ requestId, href, cached? }`, like POST /api/v2/render with output=json. */
    render: authedProcedure.input(RenderBody).mutation(async ({ ctx, input }) => {
      const { requestId, href, cached, status } = await renders.render(ctx.context, input);
      return { requestId, href, ...(cached ? { cached } : {}), ...(status ? { status } : {}) };
    }),
    account: router({
      /** The secret webhooks to the caller's organization are signed with. */
      webhookSecret: authedProcedure.input(z.void()).query(({ ctx }) => accounts.callerWebhookSecret(ctx.context)),
      /** A new secret; the previous one keeps signing alongside it for 24 hours. */
      // A mutation without input still arrives with an empty object from some clients.
      rotateWebhookSecret: authedProcedure.input(z.object({}).strict().optional()).mutation(({ ctx }) => accounts.rotateCallerWebhookSecret(ctx.context)),
      settings: authedProcedure.input(z.void()).query(({ ctx }) => settings.get(ctx.context)),
      changeSettings: authedProcedure.input(PatchSettingsBody).mutation(({ ctx, input }) => settings.change(ctx.context, input)),
      /** Keys that sign GET /img URLs; a secret is shown only by create and rotate. */
      urlSigningKeys: router({
        list: authedProcedure.input(z.void()).query(({ ctx }) => urlSigning.listKeys(ctx.context)),
        get: authedProcedure.input(SigningKeyIdParam).query(({ ctx, input }) => urlSigning.getKey(ctx.context, input.identifier)),
        create: authedProcedure.input(z.object({}).strict().optional()).mutation(({ ctx }) => urlSigning.createKey(ctx.context)),
        rotate: authedProcedure.input(SigningKeyIdParam).mutation(({ ctx, input }) => urlSigning.rotateKey(ctx.context, input.identifier)),
        revoke: authedProcedure.input(SigningKeyIdParam).mutation(async ({ ctx, input }) => {
          await urlSigning.revokeKey(ctx.context, input.identifier);
          return { revoked: true as const };
        }),
      }),
    }),
    /** A signed GET /img URL for a template, like POST /api/v2/signed-urls. */
    signedUrls: router({
      create: authedProcedure.input(SignedUrlBody).mutation(({ ctx, input }) => urlSigning.signUrl(ctx.context, input)),
    }),
    /** Screenshots and PDFs of web pages, answering `{ requestId, href, request }` like POST /api/v1/screenshots and /api/v1/pdf. */
    captures: router({
      screenshot: authedProcedure.input(ScreenshotBody).mutation(({ ctx, input }) => captures.capture(ctx.context, { kind: 'screenshot', ...input })),
      pdf: authedProcedure.input(PdfBody).mutation(({ ctx, input }) => captures.capture(ctx.context, { kind: 'pdf', ...input })),
    }),
    usage: router({
      get: authedProcedure.input(z.void()).query(({ ctx }) => usage.get(ctx.context)),
    }),
    /** Replayed from the event log; needs a key with the audit scope. */
    audit: router({
      history: authedProcedure.input(AuditHistoryQuery).query(({ ctx, input }) =>
        audit.historyPage(ctx.context, {
          from: input.from === undefined ? undefined : new Date(input.from),
          to: input.to === undefined ? undefined : new Date(input.to),
          templateId: input.template,
          batchId: input.batch,
          page: input.page,
          size: input.size,
        }),
      ),
      templateAt: authedProcedure
        .input(AuditTemplateParams.extend(AuditTemplateQuery.shape))
        .query(({ ctx, input }) => audit.templateAt(ctx.context, input.templateId, new Date(input.at))),
      batch: authedProcedure.input(AuditBatchParams).query(({ ctx, input }) => audit.batchHistory(ctx.context, input.batchId)),
    }),
    fonts: router({
      list: authedProcedure.input(z.void()).query(({ ctx }) => fonts.list(ctx.context)),
      delete: authedProcedure.input(FontIdParam).mutation(async ({ ctx, input }) => {
        await fonts.delete(ctx.context, input.identifier);
      }),
    }),
    uploads: router({
      list: authedProcedure.input(ListUploadsQuery).query(({ ctx, input }) => uploads.list(ctx.context, input)),
      delete: authedProcedure.input(UploadIdParam).mutation(async ({ ctx, input }) => {
        await uploads.delete(ctx.context, input.identifier);
      }),
    }),
    /** Batches of renders from rows of data, like /api/v2/batches (rows as JSON; a CSV goes over REST). */
    batches: router({
      submit: authedProcedure.input(BatchBody).mutation(({ ctx, input }) => batches.submit(ctx.context, input)),
      list: authedProcedure.input(ListBatchesQuery.partial().optional()).query(({ ctx, input }) => batches.list(ctx.context, { page: input?.page ?? 0, size: input?.size ?? 20 })),
      get: authedProcedure.input(BatchIdParam).query(({ ctx, input }) => batches.get(ctx.context, input.identifier)),
      cancel: authedProcedure.input(BatchIdParam).mutation(async ({ ctx, input }) => {
        await batches.cancel(ctx.context, input.identifier);
        return batches.get(ctx.context, input.identifier);
      }),
    }),
    ping: authedProcedure.input(z.void()).query(({ ctx }) => ({ orgId: ctx.context.caller.orgId })),
  });

export type AppRouter = ReturnType<typeof createAppRouter>;
