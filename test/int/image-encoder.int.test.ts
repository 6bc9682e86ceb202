import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { encodeImage } from '../../infrastructure/rendering/image-encoder.js';

const MAGIC = {
  jpeg: [0xff, 0xd8, 0xff],
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  webp: [0x52, 0x49, 0x46, 0x46],
} as const;

const startsWith = (buffer: Buffer, bytes: readonly number[]) => [...buffer.subarray(0, bytes.length)].every((byte, i) => byte === bytes[i]);

describe('encodeImage', () => {
  let png: Buffer;

  beforeAll(async () => {
    // Red on the left half, blue on the right: a crop from the top-left keeps only red.
    const half = { width: 60, height: 40, channels: 3, background: '#ff0000' } as const;
    png = await sharp({ create: { ...half, width: 120 } })
      .composite([{ input: await sharp({ create: { ...half, background: '#0000ff' } }).png().toBuffer(), left: 60, top: 0 }])
      .png()
      .toBuffer();
  });

  it.each([
    ['jpeg', 'image/jpeg'],
    ['png', 'image/png'],
    ['webp', 'image/webp'],
  ] as const)('encodes %s with its magic bytes and the full size', async (format, contentType) => {
    const image = await encodeImage(png, { format, quality: 80 });
    expect(startsWith(image.buffer, MAGIC[format])).toBe(true);
    if (format === 'webp') expect(image.buffer.subarray(8, 12).toString('ascii')).toBe('WEBP');
    expect(image).toMatchObject({ width: 120, height: 40, contentType });
    expect(await sharp(image.buffer).metadata()).toMatchObject({ format, width: 120, height: 40 });
  });

  it.each(['jpeg', 'png', 'webp'] as const)('crops %s from the top-left corner', async (format) => {
    const image = await encodeImage(png, { format, quality: 90, crop: { width: 50, height: 30 } });
    expect(image).toMatchObject({ width: 50, height: 30 });
    const { data, info } = await sharp(image.buffer).raw().toBuffer({ resolveWithObject: true });
    expect(info).toMatchObject({ width: 50, height: 30 });
    const last = (info.width * info.height - 1) * info.channels;
    expect(data[last]).toBeGreaterThan(200);
    expect(data[last + 2]).toBeLessThan(60);
  });

  it('clamps a crop larger than the image to the image', async () => {
    const image = await encodeImage(png, { format: 'jpeg', quality: 80, crop: { width: 500, height: 20 } });
    expect(image).toMatchObject({ width: 120, height: 20 });
  });

  it('makes a lower quality smaller', async () => {
    const noisy = await sharp(Buffer.from(Array.from({ length: 200 * 200 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 200, height: 200, channels: 3 },
    })
      .png()
      .toBuffer();
    const low = await encodeImage(noisy, { format: 'jpeg', quality: 10 });
    const high = await encodeImage(noisy, { format: 'jpeg', quality: 100 });
    expect(low.buffer.length).toBeLessThan(high.buffer.length);
  });

  it.each([9, 101, 50.5])('refuses quality %s', async (quality) => {
    await expect(encodeImage(png, { format: 'webp', quality })).rejects.toBeInstanceOf(DomainError);
  });
});
