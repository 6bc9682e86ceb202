import { resultFileOf, type AcceptedRequest } from '../../domain/renders/render.js';
import type { ResultLinks } from '../ports/file-storage.js';

/** The href is fixed when the request is accepted: an expiring link counts from that moment. */
export const resultHref = (links: ResultLinks, request: AcceptedRequest): string => {
  const { expires, fileName } = resultFileOf(request);
  const expiresAt = expires === null ? null : Math.floor(Date.parse(request.requestedAt) / 1000) + expires;
  return links.href(request.requestId, fileName, expiresAt);
};
