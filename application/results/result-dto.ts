import type { TextFits } from '../../domain/renders/text-fit.js';
import type { ResultView, WebhookDeliveryView } from '../ports/read-models.js';

/** Spring Data's `Sort` as serialized; results come in one fixed order the client did not choose. */
export interface SortDto {
  empty: boolean;
  unsorted: boolean;
  sorted: boolean;
}

/** The page wrapper of spec section 2, field for field as Spring Data's `Page` serializes it. */
export interface PageDto<Item> {
  content: Item[];
  pageable: {
    sort: SortDto;
    offset: number;
    pageNumber: number;
    pageSize: number;
    unpaged: boolean;
    paged: boolean;
  };
  totalPages: number;
  totalElements: number;
  last: boolean;
  size: number;
  number: number;
  sort: SortDto;
  numberOfElements: number;
  first: boolean;
  empty: boolean;
}

export interface ResultListItemDto {
  identifier: string;
  href: string;
  width?: number;
  height?: number;
  templateName: string;
  /** The template version rendered; absent for captures and renders made before versions existed. */
  templateVersion?: number;
  createdAt: string;
}

export interface ResultDetailDto extends ResultListItemDto {
  status: ResultView['status'];
  template: string;
  completedAt?: string;
  metadata: Record<string, unknown> | null;
  batch: string | null;
  format: string;
  cached: boolean;
  credits: number;
  failureReason?: string;
  /** `template` for renders of a template; `screenshot` or `pdf` for captures of a web page. */
  kind: ResultView['kind'];
  /** Captures only: the page captured. */
  url?: string;
  /** Pending video renders only: frames captured so far of the whole video. */
  progress?: { framesDone: number; framesTotal: number };
  /** Requests with a webhookUrl only: how its delivery stands. */
  webhook?: WebhookDeliveryView;
  /** Renders with fitted text only: what fitting did, by component id (canvas) or element id (html). */
  fit?: TextFits;
  /** Test keys' renders and captures only: free, watermarked, kept a day. */
  test?: true;
}

const UNSORTED: SortDto = { empty: true, unsorted: true, sorted: false };

/** Page arithmetic as Spring's PageImpl does it: `page` is zero-based, `size` at least 1. */
export const toPage = <Item>(content: Item[], page: number, size: number, totalElements: number): PageDto<Item> => {
  const totalPages = Math.ceil(totalElements / size);
  return {
    content,
    pageable: { sort: { ...UNSORTED }, offset: page * size, pageNumber: page, pageSize: size, unpaged: false, paged: true },
    totalPages,
    totalElements,
    last: page + 1 >= totalPages,
    size,
    number: page,
    sort: { ...UNSORTED },
    numberOfElements: content.length,
    first: page === 0,
    empty: content.length === 0,
  };
};

/** Pending and failed results have no file yet, so no pixel size: the fields are left out rather than invented. */
const dimensions = (view: ResultView) => ({
  ...(view.width !== null ? { width: view.width } : {}),
  ...(view.height !== null ? { height: view.height } : {}),
});

export const toResultListItem = (view: ResultView, href: string): ResultListItemDto => ({
  identifier: view.requestId,
  href,
  ...dimensions(view),
  templateName: view.templateName,
  ...(view.templateVersion !== null ? { templateVersion: view.templateVersion } : {}),
  createdAt: view.createdAt.toISOString(),
});

export const toResultDetail = (view: ResultView, href: string): ResultDetailDto => ({
  identifier: view.requestId,
  href,
  status: view.status,
  ...dimensions(view),
  templateName: view.templateName,
  ...(view.templateVersion !== null ? { templateVersion: view.templateVersion } : {}),
  template: view.templateId,
  createdAt: view.createdAt.toISOString(),
  ...(view.completedAt ? { completedAt: view.completedAt.toISOString() } : {}),
  metadata: view.metadata,
  batch: view.batchName,
  format: view.format,
  cached: view.cached,
  credits: view.credits,
  ...(view.status === 'failed' && view.failureReason !== null ? { failureReason: view.failureReason } : {}),
  kind: view.kind,
  ...(view.url !== null ? { url: view.url } : {}),
  ...(view.status === 'pending' && view.framesTotal !== null ? { progress: { framesDone: view.framesDone ?? 0, framesTotal: view.framesTotal } } : {}),
  ...(view.webhook ? { webhook: view.webhook } : {}),
  ...(view.fit ? { fit: view.fit } : {}),
  ...(view.test ? { test: true as const } : {}),
});
