import { LRUCache } from 'lru-cache';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { FONT_CONTENT_TYPES, fontIdOfAssetUrl, uploadIdOfHref } from '../../application/assets/asset-locations.js';
import type { FileStorage } from '../../application/ports/file-storage.js';
import type { AssetReadModel } from '../../application/ports/read-models.js';

/** What a page asked for, when it names an uploaded file: its bytes, or `absent` (another organization's, deleted, unknown). */
export type AssetAnswer = { readonly contentType: string; readonly body: Buffer } | 'absent';

export interface OrgAssetSource {
  /** null when the address names no uploaded file: the request goes its usual way. */
  answer(orgId: string, url: URL): Promise<AssetAnswer | null>;
}

export interface OrgAssetSourceOptions {
  readonly assets: Pick<AssetReadModel, 'getFont' | 'getUpload'>;
  readonly storage: Pick<FileStorage, 'get'>;
  /** The origin upload hrefs are written with (PUBLIC_BASE_URL). */
  readonly publicOrigin: string;
  /** Bytes of files kept in memory between renders; a file's key never changes content, so they never go stale. */
  readonly cacheBytes?: number;
}

/**
 * Uploaded fonts and images for render pages, from storage inside the worker: never over the public
 * network, and only the page's own organization's (every lookup is by organization and id, so
 * another's id finds nothing). The read model is asked every time, so a deletion is seen at once.
 */
export const createOrgAssetSource = ({ assets, storage, publicOrigin, cacheBytes = 64 * 1024 * 1024 }: OrgAssetSourceOptions): OrgAssetSource => {
  const files = new LRUCache<string, Buffer>({ maxSize: cacheBytes, sizeCalculation: (body) => Math.max(1, body.length) });
  const bytesOf = async (storageKey: string): Promise<Buffer | null> => {
    const cached = files.get(storageKey);
    if (cached) return cached;
    const body = await storage.get(storageKey);
    if (body && body.length <= cacheBytes / 4) files.set(storageKey, body);
    return body;
  };
  return {
    async answer(orgId, url) {
      const fontId = fontIdOfAssetUrl(url);
      if (fontId !== null) {
        const font = await assets.getFont(orgId, fontId);
        const body = font && (await bytesOf(font.storageKey));
        return font && body ? { contentType: FONT_CONTENT_TYPES[font.format], body } : 'absent';
      }
      const uploadId = uploadIdOfHref(url, publicOrigin);
      if (uploadId !== null) {
        const upload = await assets.getUpload(orgId, uploadId);
        const body = upload && (await bytesOf(upload.storageKey));
        return upload && body ? { contentType: upload.contentType, body } : 'absent';
      }
      return null;
    },
  };
};

/** For pages that never show uploads (benchmarks, tests of other things): every address goes its usual way. */
export const NO_ORG_ASSETS: OrgAssetSource = { answer: async () => null };

/** Above the network guard's refusal of `.invalid` hosts and its pass of public ones. */
const SERVE_PRIORITY = Number.MAX_SAFE_INTEGER;

/*
 * Fonts come from another origin than the template's document, and @font-face loads are CORS
 * requests; the page may use them, as it may its own uploads, so they are answered as public.
 */
const HEADERS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };

/**
 * Once per page, for the one organization whose page it is (pages are never shared): answers its
 * uploaded files from the source, and refuses with 404 any other organization's, deleted or unknown.
 */
export const serveOrgAssets = (page: Page, orgId: string, source: OrgAssetSource): void => {
  const serve = async (request: HTTPRequest): Promise<void> => {
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return;
    }
    const answer = await source.answer(orgId, url).catch(() => 'absent' as const);
    if (answer === null) return;
    if (answer === 'absent') {
      await request.respond({ status: 404, headers: HEADERS, contentType: 'text/plain', body: 'not found' }, SERVE_PRIORITY);
      return;
    }
    await request.respond({ status: 200, headers: HEADERS, contentType: answer.contentType, body: answer.body }, SERVE_PRIORITY);
  };
  // Puppeteer awaits the promise a 'request' listener returns before it resolves the request.
  page.on('request', (request) => (request.isInterceptResolutionHandled() ? undefined : serve(request).catch(() => {})));
};
