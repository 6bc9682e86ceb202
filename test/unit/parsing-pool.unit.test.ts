import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { refuseFont } from '../../infrastructure/fonts/font-refusal.js';
import { isolatedFontInspector } from '../../infrastructure/parsing/isolated-inspectors.js';
import { createParsingPool, type ParsingPool, type ParsingPoolOptions } from '../../infrastructure/parsing/parsing-pool.js';
import { refuseImage } from '../../infrastructure/uploads/image-refusal.js';
import { MAX_SVG_ELEMENTS } from '../../infrastructure/uploads/svg-structure.js';
import { expectDomainError } from '../support/expect-domain-error.js';
import { toWoff2, woff2Bomb } from '../support/font-containers.js';

/*
 * The pool's worker threads load the service's TypeScript themselves (this test runner does not
 * transform what a worker thread loads), and are killed past their time or memory.
 */

const FONT = readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf');
const svgBytes = (body: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg">${body}</svg>`);
/** Just under the element limit: seconds of DOM work. */
const LARGE_SVG = svgBytes('<rect width="1" height="1" fill="red"/>'.repeat(MAX_SVG_ELEMENTS - 10));
/** As many elements, each with a dozen attributes to check: several seconds more. */
const SLOW_SVG = svgBytes(
  '<rect x="1" y="2" width="3" height="4" rx="1" ry="1" fill="red" stroke="blue" stroke-width="2" opacity=".5" fill-opacity=".5" stroke-opacity=".5" stroke-dasharray="1 2" transform="translate(1 2)"/>'.repeat(
    MAX_SVG_ELEMENTS - 10,
  ),
);

const pools: ParsingPool[] = [];
const poolWith = (options: Partial<ParsingPoolOptions> = {}) => {
  const pool = createParsingPool({ threads: 1, timeLimitMs: 30_000, heapLimitMb: 256, maxWaiting: 4, idleMs: 10_000, ...options });
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('the parsing pool', () => {
  it('parses fonts and sanitizes SVGs in a worker thread', async () => {
    const pool = poolWith();
    expect(await pool.run({ kind: 'font', content: toWoff2(FONT) }, refuseFont)).toMatchObject({ format: 'woff2', family: 'DejaVu Sans Mono', weight: 700 });
    expect(await pool.run({ kind: 'svg', content: svgBytes('<rect width="1" height="1" onclick="x()"/>') }, refuseImage)).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"><rect width="1" height="1" ?\/><\/svg>$/);
  }, 30_000);

  it("counts a file's parse in its time limit, not the thread's start or the parser's load", async () => {
    // A new thread loads the service's modules and a DOM for the sanitizer: more than this limit on a busy machine.
    const pool = poolWith({ timeLimitMs: 500 });
    expect(await pool.run({ kind: 'svg', content: svgBytes('<rect width="1" height="1"/>') }, refuseImage)).toMatch(/<rect width="1" height="1" ?\/>/);
    expect(await pool.run({ kind: 'font', content: FONT }, refuseFont)).toMatchObject({ format: 'ttf', family: 'DejaVu Sans Mono' });
  }, 60_000);

  it('answers a refusal inside the thread as the same 400', async () => {
    const error = await expectDomainError(poolWith().run({ kind: 'svg', content: svgBytes('<g>') }, refuseImage), 'validation');
    expect(error.message).toMatch(/^The file is not an image that can be uploaded: it is not well-formed XML/);
    expect(error.details[0]).toMatch(/^file: /);
  }, 30_000);

  it('kills a thread past the time limit, refuses the file with a 400, and parses the next file in a new thread', async () => {
    const pool = poolWith({ timeLimitMs: 2500 });
    // Only the time limit words it so: a parse that ended first would have answered the sanitized drawing.
    const error = await expectDomainError(pool.run({ kind: 'svg', content: SLOW_SVG }, refuseImage), 'validation');
    expect(error.message).toBe('The file is not an image that can be uploaded: it took too long to parse');
    expect(await pool.run({ kind: 'font', content: FONT }, refuseFont)).toMatchObject({ format: 'ttf', family: 'DejaVu Sans Mono' });
  }, 60_000);

  it('refuses with a 400 a file whose parse outgrows the heap limit, and goes on', async () => {
    const pool = poolWith({ heapLimitMb: 48 });
    const error = await expectDomainError(pool.run({ kind: 'svg', content: LARGE_SVG }, refuseImage), 'validation');
    expect(error.message).toBe('The file is not an image that can be uploaded: parsing it needed more memory than an upload may use');
    expect(await pool.run({ kind: 'font', content: FONT }, refuseFont)).toMatchObject({ format: 'ttf' });
  }, 60_000);

  it('queues a file while the thread is busy, and refuses one past the waiting room (503)', async () => {
    const pool = poolWith({ timeLimitMs: 20_000, maxWaiting: 1 });
    const first = pool.run({ kind: 'svg', content: LARGE_SVG }, refuseImage);
    const second = pool.run({ kind: 'svg', content: LARGE_SVG }, refuseImage);
    await expectDomainError(pool.run({ kind: 'svg', content: LARGE_SVG }, refuseImage), 'unavailable');
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
  }, 90_000);

  it('refuses a font bomb from its header without waking a thread', async () => {
    const untouchable: ParsingPool = { run: () => expect.fail('a thread was asked to parse a bomb'), close: async () => {} };
    const error = await expectDomainError(isolatedFontInspector(untouchable).inspect(woff2Bomb()), 'validation');
    expect(error.message).toMatch(/declares 1073741852 bytes of tables/);
  });
});
