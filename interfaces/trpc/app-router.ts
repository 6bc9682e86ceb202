import { z } from 'zod';
import type { AppServices } from '../http/app-services.js';
import { IdParam } from '../schemas/common.js';
import { RenderBody } from '../schemas/render-schemas.js';
import { ListResultsQuery, ResultIdParam } from '../schemas/result-schemas.js';
import { CreateTemplateBody, HtmlContentBody, ListTemplatesQuery, PatchTemplateBody } from '../schemas/template-schemas.js';
import { authedProcedure, router } from './trpc.js';

/** The same use cases as REST, typed end to end for internal consumers. */
export const createAppRouter = ({ templates, results, usage, fonts, renders }: AppServices) =>
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
    usage: router({
      get: authedProcedure.input(z.void()).query(({ ctx }) => usage.get(ctx.context)),
    }),
    fonts: router({
      list: authedProcedure.input(z.void()).query(() => fonts.list()),
    }),
    ping: authedProcedure.input(z.void()).query(({ ctx }) => ({ orgId: ctx.context.caller.orgId })),
  });

export type AppRouter = ReturnType<typeof createAppRouter>;
