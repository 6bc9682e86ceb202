import type { Page } from 'puppeteer-core';

export interface ViewportSize {
  readonly width: number;
  readonly height: number;
  readonly deviceScaleFactor: number;
}

const current = new WeakMap<Page, string>();

/**
 * Sizes a warm page for a render. Setting the same size again is not free (Chromium re-lays out the
 * page and produces a new frame), and consecutive renders of one organization usually share a size.
 */
export const fitViewport = async (page: Page, size: ViewportSize): Promise<void> => {
  const key = `${size.width}x${size.height}@${size.deviceScaleFactor}`;
  if (current.get(page) === key) return;
  current.delete(page);
  await page.setViewport({ width: size.width, height: size.height, deviceScaleFactor: size.deviceScaleFactor });
  current.set(page, key);
};
