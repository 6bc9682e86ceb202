import type { ElementHandle, Page } from 'puppeteer-core';
import sharp from 'sharp';

/** What the screen shows of an element (or raw image bytes), as pixels. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  at(x: number, y: number): [number, number, number];
}

export const pixelsOfImage = async (image: Buffer | Uint8Array): Promise<Pixels> => {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const offset = (Math.round(y) * info.width + Math.round(x)) * 4;
      return [data[offset] ?? 0, data[offset + 1] ?? 0, data[offset + 2] ?? 0];
    },
  };
};

export const pixelsOf = async (element: ElementHandle): Promise<Pixels> => pixelsOfImage(await element.screenshot({ type: 'png' }));

export const near = (actual: readonly number[], expected: readonly number[], tolerance = 40) => actual.every((value, index) => Math.abs(value - (expected[index] ?? 0)) <= tolerance);

/** A region of a template's page, in template pixels. */
export interface Region {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The dark/light pattern of a region of a picture of a `pageWidth`-wide page, sampled every template pixel: one bit per sample. */
export const inkOf = (pixels: Pixels, pageWidth: number, region: Region): boolean[] => {
  const scale = pixels.width / pageWidth;
  const ink: boolean[] = [];
  for (let y = region.y; y < region.y + region.height; y += 1) {
    for (let x = region.x; x < region.x + region.width; x += 1) ink.push(pixels.at(x * scale, y * scale).every((channel) => channel < 110));
  }
  return ink;
};

export const countInk = (ink: readonly boolean[]) => ink.filter(Boolean).length;
export const inkDifference = (a: readonly boolean[], b: readonly boolean[]) => a.filter((value, index) => value !== b[index]).length;

/** Controls by role and accessible name, as assistive technology finds them. */
export const studioControls = (page: Page) => {
  const field = (name: string, role = 'textbox') => page.locator(`::-p-aria([name="${name}"][role="${role}"])`);
  /**
   * Replaces what the control holds by selecting it all and typing `text` key by key, as a person
   * would, until the control holds `text`. Not puppeteer's fill: it empties the value in one call and
   * types in later ones, and a re-render in between (a save answered, a list loaded) puts React's
   * value back, so the keys land after it; under load that gap is wide enough to lose edits.
   */
  const typeInto = async (name: string, text: string, role = 'textbox') => {
    const control = await field(name, role).waitHandle();
    for (let attempt = 1; ; attempt += 1) {
      await control.evaluate((element) => {
        const input = element as unknown as { focus(): void; select(): void };
        input.focus();
        input.select();
      });
      await page.keyboard.type(text);
      const value = await control.evaluate((element) => (element as unknown as { value: string }).value);
      if (value === text) return;
      if (attempt === 3) throw new Error(`typed "${text}" into ${name} but it holds "${value}"`);
    }
  };
  return { field, typeInto };
};
