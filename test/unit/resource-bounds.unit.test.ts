import QRCode from 'qrcode';
import { describe, expect, it, vi } from 'vitest';
import { qrValue, QR_CAPACITY_BYTES } from '../../domain/templates/components/property-checks.js';
import { createInFlightLimit } from '../../application/shared/in-flight-limit.js';
import { UnavailableError } from '../../domain/shared/errors.js';
import { boundedTemplateCache, MUSTACHE_CACHE_LIMITS, Mustache, mustacheTemplateCache } from '../../infrastructure/templates/bounded-mustache.js';

describe('QR value capacity', () => {
  const check = qrValue(2000);

  it('accepts exactly what the QR library can encode at level M, and refuses one byte more', () => {
    const fits = '漢'.repeat(QR_CAPACITY_BYTES / 3);
    expect(check.check(fits, false)).toEqual({ ok: true, value: fits });
    expect(() => QRCode.create(fits, { errorCorrectionLevel: 'M' })).not.toThrow();

    const over = `${fits}a`;
    expect(check.check(over, false)).toMatchObject({ ok: false, message: expect.stringMatching(/2332 bytes/) });
    expect(() => QRCode.create(over, { errorCorrectionLevel: 'M' })).toThrow();
  });
});

describe('bounded mustache cache', () => {
  it('keeps at most its entry count however many distinct templates are parsed', () => {
    for (let index = 0; index < MUSTACHE_CACHE_LIMITS.entries + 300; index++) Mustache.parse(`<p>{{field${index}}}</p>`);
    expect(Mustache.templateCache).toBe(mustacheTemplateCache);
    expect(mustacheTemplateCache.size).toBe(MUSTACHE_CACHE_LIMITS.entries);
    expect(mustacheTemplateCache.maxSize).toBe(MUSTACHE_CACHE_LIMITS.characters);
    // The most recent ones are kept; rendering still works after eviction.
    expect(Mustache.render('<p>{{field0}}</p>', { field0: 'back' })).toBe('<p>back</p>');
  });

  it('does not keep a template larger than the whole cache, nor let big ones exceed its size', () => {
    const cache = boundedTemplateCache({ entries: 100, characters: 1000 });
    Mustache.templateCache = cache;
    try {
      expect(Mustache.render(`${'x'.repeat(1000)}{{a}}`, { a: 'y' }).endsWith('y')).toBe(true);
      expect(cache.size).toBe(0);
      for (let index = 0; index < 10; index++) Mustache.parse(`${'b'.repeat(300)}{{f${index}}}`);
      expect(cache.size).toBe(3);
      expect(cache.calculatedSize).toBeLessThanOrEqual(1000);
    } finally {
      Mustache.templateCache = mustacheTemplateCache;
    }
  });
});

describe('in-flight limit', () => {
  it('refuses past the per-key bound and the total bound with Retry-After, and frees places when work ends', async () => {
    const limit = createInFlightLimit('history pages', { total: 3, perKey: 2, retryAfterSeconds: 7 });
    const gates: (() => void)[] = [];
    const held = () => new Promise<void>((resolve) => gates.push(resolve));
    const running = [limit('a', held), limit('a', held)];
    const refusedForKey = await limit('a', held).catch((error: unknown) => error);
    expect(refusedForKey).toBeInstanceOf(UnavailableError);
    expect((refusedForKey as UnavailableError).retryAfterSeconds).toBe(7);
    expect((refusedForKey as UnavailableError).details).toEqual(['history pages: at most 2 per organization at once']);

    running.push(limit('b', held));
    await expect(limit('c', held)).rejects.toThrow(/Too many history pages/);

    const work = vi.fn(async () => 'done');
    gates.splice(0).forEach((open) => open());
    await Promise.all(running);
    await expect(limit('a', work)).resolves.toBe('done');
    await expect(limit('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    // A failed call frees its place too.
    await expect(Promise.all([limit('a', work), limit('a', work)])).resolves.toEqual(['done', 'done']);
  });
});
