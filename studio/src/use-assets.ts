import { useEffect, useState } from 'react';
import { api, ApiError } from './api-client';
import type { CustomFont, Font, UploadPage } from './types';

export interface Assets {
  /** Every font the organization's renders can use (GET /api/v1/fonts); null while loading. */
  readonly fonts: readonly (Font | CustomFont)[] | null;
  /** One page of the organization's uploads, newest first (GET /api/v2/uploads); null while loading. */
  readonly uploads: UploadPage | null;
  readonly error: string | null;
}

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

/** The organization's fonts and a page of its uploads, read again whenever `reload` changes. */
export const useAssets = (page = 0, size = 50, reload = 0): Assets => {
  const [assets, setAssets] = useState<Assets>({ fonts: null, uploads: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    Promise.all([
      api.json<(Font | CustomFont)[]>('GET', '/api/v1/fonts', undefined, controller.signal),
      api.json<UploadPage>('GET', `/api/v2/uploads?page=${page}&size=${size}`, undefined, controller.signal),
    ]).then(
      ([fonts, uploads]) => setAssets({ fonts, uploads, error: null }),
      (failure: unknown) => controller.signal.aborted || setAssets((previous) => ({ ...previous, error: describe(failure) })),
    );
    return () => controller.abort();
  }, [page, size, reload]);
  return assets;
};
