import type { EventStore } from '../../ports/event-store.js';
import type { ResultLinks } from '../../ports/file-storage.js';
import type { ResultReadModel, ResultView } from '../../ports/read-models.js';
import { requestAsSent } from '../../renders/hit-data.js';
import { v1ChangesOf } from '../../renders/v1-render.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';

/** Spec section 2, "Request record (deprecated v1 list)". */
export interface RequestRecordDto {
  identifier: string;
  href: string;
  /** Screenshots (and PDFs) of web pages only: the captured URL. */
  executeUrl?: string;
  /** Textual HTTP-like status, as v1 clients know it. */
  status: string;
  width?: number;
  height?: number;
  type: 'screenshot' | 'image';
  template?: string;
  templateName?: string;
  changes?: Record<string, unknown>[];
  /** `yyyy-MM-ddTHH:mm:ss`, without zone: the UTC wall clock. */
  createdAt: string;
}

export interface RequestWindow {
  readonly offset: number;
  readonly limit: number;
}

const STATUS_TEXT: Record<ResultView['status'], string> = {
  pending: 'PROCESSING',
  done: 'OK',
  failed: 'INTERNAL_SERVER_ERROR',
};

const localTimestamp = (date: Date) => date.toISOString().slice(0, 19);

const dataOf = (request: Record<string, unknown>): Record<string, unknown> =>
  request.data && typeof request.data === 'object' && !Array.isArray(request.data) ? (request.data as Record<string, unknown>) : {};

export const toRequestRecord = (view: ResultView, href: string): RequestRecordDto => {
  const common = {
    identifier: view.requestId,
    href,
    status: STATUS_TEXT[view.status],
    ...(view.width !== null ? { width: view.width } : {}),
    ...(view.height !== null ? { height: view.height } : {}),
    createdAt: localTimestamp(view.createdAt),
  };
  if (view.kind !== 'template') return { ...common, type: 'screenshot', executeUrl: view.url ?? '' };
  return { ...common, type: 'image', template: view.templateId, templateName: view.templateName, changes: v1ChangesOf(dataOf(view.request)) };
};

export type RequestListService = ReturnType<typeof createRequestListService>;

/** GET /api/v1/requests: renders and captures newest first, read from the same read model as v2 results. */
export const createRequestListService = (deps: { readonly results: ResultReadModel; readonly links: ResultLinks; readonly eventStore: EventStore }) => ({
  async list(context: RequestContext, window: RequestWindow): Promise<RequestRecordDto[]> {
    requireScope(context, 'render');
    const views = await deps.results.slice(context.caller.orgId, window);
    return Promise.all(
      views.map(async (view) =>
        toRequestRecord({ ...view, request: await requestAsSent(deps.eventStore, view.request, view.dataFrom) }, deps.links.href(view.requestId, view.fileName, view.expiresAt)),
      ),
    );
  },
});
