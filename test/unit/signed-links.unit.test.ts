import { describe, expect, it } from 'vitest';
import { createResultLinks } from '../../infrastructure/storage/signed-links.js';

const links = createResultLinks({ baseUrl: 'https://render.example/', secret: 'a-test-secret-of-some-length' });
const NOW = 1_800_000_000;

const queryOf = (href: string) => {
  const params = new URL(href).searchParams;
  return { expires: params.get('expires') ?? undefined, signature: params.get('signature') ?? undefined };
};

describe('result links', () => {
  it('builds a plain href for links that never expire', () => {
    expect(links.href('req-1', 'my card.png', null)).toBe('https://render.example/files/req-1/my%20card.png');
    expect(links.verify('req-1', 'my card.png', {}, NOW, false)).toBe(true);
  });

  it('signs expiring links and accepts them until they expire', () => {
    const href = links.href('req-1', 'card.png', NOW + 60);
    expect(href).toMatch(/^https:\/\/render\.example\/files\/req-1\/card\.png\?expires=1800000060&signature=[0-9a-f]{64}$/);
    const query = queryOf(href);
    expect(links.verify('req-1', 'card.png', query, NOW, true)).toBe(true);
    expect(links.verify('req-1', 'card.png', query, NOW + 59, true)).toBe(true);
    expect(links.verify('req-1', 'card.png', query, NOW + 60, true)).toBe(false);
    expect(links.verify('req-1', 'card.png', query, NOW + 3600, true)).toBe(false);
  });

  it('rejects a link whose parts were tampered with', () => {
    const query = queryOf(links.href('req-1', 'card.png', NOW + 60));
    const flipped = `${query.signature!.slice(0, -1)}${query.signature!.endsWith('0') ? '1' : '0'}`;
    expect(links.verify('req-1', 'card.png', { ...query, signature: flipped }, NOW, true)).toBe(false);
    expect(links.verify('req-1', 'card.png', { ...query, expires: String(NOW + 600) }, NOW, true)).toBe(false);
    expect(links.verify('req-2', 'card.png', query, NOW, true)).toBe(false);
    expect(links.verify('req-1', 'other.png', query, NOW, true)).toBe(false);
    expect(links.verify('req-1', 'card.png', { ...query, signature: 'zz' }, NOW, true)).toBe(false);
    expect(links.verify('req-1', 'card.png', { ...query, expires: '-1' }, NOW, true)).toBe(false);
  });

  it('requires a signature where the result expires', () => {
    expect(links.verify('req-1', 'card.png', {}, NOW, true)).toBe(false);
    expect(links.verify('req-1', 'card.png', { expires: String(NOW + 60) }, NOW, true)).toBe(false);
  });

  it('does not accept a signature made with another secret', () => {
    const other = createResultLinks({ baseUrl: 'https://render.example', secret: 'another-secret-entirely' });
    expect(links.verify('req-1', 'card.png', queryOf(other.href('req-1', 'card.png', NOW + 60)), NOW, true)).toBe(false);
  });
});
