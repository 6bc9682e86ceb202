import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RenderAnswer } from '../../application/renders/request-render/render-input.js';
import type { RequestContext } from '../../application/shared/request-context.js';
import type { AppServices } from '../http/app-services.js';
import { toErrorBody } from '../http/error-mapping.js';
import { BatchBody, BatchIdParam, ListBatchesQuery } from '../schemas/batch-schemas.js';
import { IdParam } from '../schemas/common.js';
import { RenderBody } from '../schemas/render-schemas.js';
import { ListResultsQuery, ResultIdParam } from '../schemas/result-schemas.js';
import { ListTemplatesQuery } from '../schemas/template-schemas.js';
import { PdfBody, ScreenshotBody } from '../schemas/v1-schemas.js';

/** The largest rendered image a render answers inline; a larger one is left at its href. */
export const MAX_INLINE_IMAGE_BYTES = 1024 * 1024;

const INSTRUCTIONS = [
  'Renders stored templates into images, PDFs and videos, and captures web pages.',
  'list_templates, then get_template: its properties name the keys `data` takes (html-editor: merge fields; canvas: <componentId>.<property>), with types and defaults.',
  'validate_render checks data without rendering or charging; render answers requestId and href (inline: true adds a small image itself).',
  'Errors carry { msg, status, errors } as the REST API answers them.',
].join(' ');

/**
 * The REST schemas as tool inputs: `.extend({})` makes a copy without the OpenAPI component id, so
 * the tool's JSON schema is the object itself rather than a reference to it; strictness is kept.
 */
const RenderInputSchema = RenderBody.extend({});
const RenderToolInput = RenderBody.extend({
  inline: z.boolean().optional().meta({ description: `Also answer the image itself (base64 image content) when the render is a synchronous image of at most ${MAX_INLINE_IMAGE_BYTES} bytes` }),
});

const text = (value: unknown): CallToolResult['content'][number] => ({ type: 'text', text: JSON.stringify(value) });
const answer = (value: unknown): CallToolResult => ({ content: [text(value)] });

/** A render's JSON answer, as POST /api/v2/render gives it. */
const renderAnswer = ({ requestId, href, status, cached }: RenderAnswer) => ({ requestId, href, ...(status ? { status } : {}), ...(cached ? { cached } : {}) });

/** The file of a finished render as image content, or why it is not there. */
const inlineImage = async ({ renders }: AppServices, rendered: RenderAnswer): Promise<CallToolResult['content'][number]> => {
  if (!rendered.storageKey) return text({ inline: 'not inlined: the file is not ready yet; poll get_result with the requestId' });
  if (!rendered.contentType?.startsWith('image/')) return text({ inline: `not inlined: a ${rendered.contentType ?? 'file'} is not an image; fetch its href` });
  const file = await renders.fileOf(rendered);
  if (file.content.length > MAX_INLINE_IMAGE_BYTES) return text({ inline: `not inlined: ${file.content.length} bytes, more than ${MAX_INLINE_IMAGE_BYTES}; fetch its href` });
  return { type: 'image', data: file.content.toString('base64'), mimeType: file.contentType };
};

/**
 * One MCP server for one request, acting for its caller: every tool calls the use case its REST
 * route calls, with the caller's context (organization, scopes), so scopes and tenancy are the
 * application's as everywhere. A refusal is a tool error carrying the REST error body; each call is
 * logged under the request's id with its tool and status.
 */
export const createMcpServer = (services: AppServices, context: RequestContext, log: Logger): McpServer => {
  const { templates, renders, results, captures, usage, batches } = services;
  const server = new McpServer({ name: 'render-service', version: '1.0.0' }, { instructions: INSTRUCTIONS });

  const run =
    <Args>(tool: string, handler: (args: Args) => Promise<CallToolResult>) =>
    async (args: Args): Promise<CallToolResult> => {
      const started = performance.now();
      try {
        const result = await handler(args);
        log.info({ tool, status: 200, responseTime: Math.round(performance.now() - started) }, 'mcp tool call');
        return result;
      } catch (error) {
        const body = toErrorBody(error);
        const line = { tool, status: body.status, msg: body.msg, responseTime: Math.round(performance.now() - started) };
        if (body.status >= 500) log.error({ ...line, err: error }, 'mcp tool call failed');
        else log.warn(line, 'mcp tool call refused');
        return { isError: true, content: [text(body)] };
      }
    };
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'list_templates',
    { title: 'List templates', description: 'The templates of the key\'s organization, filtered by name and tags, paged (templates scope).', inputSchema: ListTemplatesQuery, annotations: readOnly },
    run('list_templates', async (filter) => answer(await templates.list(context, filter))),
  );
  server.registerTool(
    'get_template',
    {
      title: 'Get a template',
      description:
        'One template with its properties: each property\'s key is a key of a render\'s `data` (html-editor: the merge fields; canvas: <componentId>.<property>), with its type, defaultValue and whether it is locked (templates scope).',
      inputSchema: IdParam,
      annotations: readOnly,
    },
    run('get_template', async ({ templateId }) => answer(await templates.get(context, templateId))),
  );
  server.registerTool(
    'render',
    {
      title: 'Render a template',
      description:
        'Renders a template with `data`, as POST /api/v2/render: answers { requestId, href } (videos and webhook renders: status pending; poll get_result). Charged like any render (render scope). With inline: true a synchronous image of at most 1 MB also comes as image content.',
      inputSchema: RenderToolInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    run('render', async ({ inline, ...input }) => {
      const rendered = await renders.render(context, input);
      return { content: [text(renderAnswer(rendered)), ...(inline ? [await inlineImage(services, rendered)] : [])] };
    }),
  );
  server.registerTool(
    'validate_render',
    {
      title: 'Check a render without rendering it',
      description:
        "Checks a render's data against the template version it would draw, without rendering, recording or charging: keys the template does not have, bad values, locked components; lists the merge fields left out and what the render would cost. Answers { valid, template, templateVersion, problems, missing, credits } (render scope).",
      inputSchema: RenderInputSchema,
      annotations: readOnly,
    },
    run('validate_render', async (input) => answer(await renders.check(context, input))),
  );
  server.registerTool(
    'list_results',
    { title: 'List results', description: 'Renders and captures, newest first, by template or batch name, paged (render scope).', inputSchema: ListResultsQuery, annotations: readOnly },
    run('list_results', async ({ template, batch, page, size }) => answer(await results.list(context, { templateId: template, batchName: batch, page, size }))),
  );
  server.registerTool(
    'get_result',
    { title: 'Get a result', description: 'One render or capture by its requestId: status (pending, done, failed), href, failureReason, progress of a video (render scope).', inputSchema: ResultIdParam, annotations: readOnly },
    run('get_result', async ({ identifier }) => answer(await results.get(context, identifier))),
  );
  server.registerTool(
    'take_screenshot',
    { title: 'Screenshot a web page', description: 'An image of a public http(s) page, as POST /api/v1/screenshots: the viewport (PNG unless format says jpeg or webp), the whole page (fullPage, scrollPage to load lazy content) or one element (selector); blockAds hides ads, trackers and cookie pop-ups; colorScheme, deviceScaleFactor, waitForSelector. Answers { requestId, href, request }; 1 credit (render scope).', inputSchema: ScreenshotBody.extend({}), annotations: { readOnlyHint: false, openWorldHint: true } },
    run('take_screenshot', async (input) => answer(await captures.capture(context, { kind: 'screenshot', ...input }))),
  );
  server.registerTool(
    'create_pdf_from_url',
    { title: 'PDF of a web page', description: 'A PDF of a public http(s) page on the paper named (A4 by default), as POST /api/v1/pdf (scrollPage, waitForSelector, colorScheme, blockAds as for screenshots): answers { requestId, href, request }; 1 credit (render scope).', inputSchema: PdfBody.extend({}), annotations: { readOnlyHint: false, openWorldHint: true } },
    run('create_pdf_from_url', async (input) => answer(await captures.capture(context, { kind: 'pdf', ...input }))),
  );
  server.registerTool(
    'get_usage',
    { title: 'Credits and storage used', description: 'The organization\'s credits (used, total, next renewal), upload bytes and plan, as GET /api/v1/usage (any key).', annotations: readOnly },
    run('get_usage', async () => answer(await usage.get(context))),
  );
  server.registerTool(
    'submit_batch',
    {
      title: 'Submit a batch',
      description:
        'Renders one template once per row of data, as POST /api/v2/batches with JSON rows: every row is checked first (a bad batch records nothing), credits for all rows must be there. Answers { identifier, name, status: pending, total }; follow with get_batch (render scope).',
      inputSchema: BatchBody.extend({}),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    run('submit_batch', async (input) => answer(await batches.submit(context, input))),
  );
  server.registerTool(
    'get_batch',
    { title: 'Get a batch', description: 'A batch\'s status (pending, running, done, cancelled), counts, credits charged, first failures and zipHref (render scope).', inputSchema: BatchIdParam, annotations: readOnly },
    run('get_batch', async ({ identifier }) => answer(await batches.get(context, identifier))),
  );
  server.registerTool(
    'list_batches',
    { title: 'List batches', description: 'The organization\'s batches, newest first, paged (render scope).', inputSchema: ListBatchesQuery, annotations: readOnly },
    run('list_batches', async (page) => answer(await batches.list(context, page))),
  );
  server.registerTool(
    'cancel_batch',
    { title: 'Cancel a batch', description: 'Cancels the rows not started yet (never recorded nor charged); rows rendering finish. Answers the batch (render scope).', inputSchema: BatchIdParam, annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } },
    run('cancel_batch', async ({ identifier }) => {
      await batches.cancel(context, identifier);
      return answer(await batches.get(context, identifier));
    }),
  );

  return server;
};
