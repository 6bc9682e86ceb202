import { describe, expect, it } from 'vitest';
import { looksLikeSvg, sanitizeSvg } from '../../infrastructure/uploads/svg-sanitizer.js';

describe('sanitizeSvg', () => {
  const hostile =
    `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">` +
    `<script>alert(2)</script><style>@import url(http://evil.example/x.css)</style>` +
    `<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>` +
    `<rect width="10" height="10" fill="url(#g)"/><rect width="5" height="5" style="fill:url(http://evil.example/a)" filter="url(http://evil.example/f#x)"/>` +
    `<image href="http://evil.example/x.png" width="5" height="5"/><image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>` +
    `<a href="javascript:alert(3)"><circle r="2"/></a><foreignObject><iframe src="http://evil.example"></iframe></foreignObject></svg>`;

  it('drops scripts, handlers, style elements, links, foreign content and every external reference', () => {
    const clean = sanitizeSvg(hostile);
    expect(clean).not.toMatch(/script|onload|alert|@import|evil\.example|foreignObject|iframe|javascript/i);
  });
  it('keeps the drawing, its references to itself and embedded raster images', () => {
    const clean = sanitizeSvg(hostile);
    expect(clean).toContain('viewBox="0 0 10 10"');
    expect(clean).toContain('fill="url(#g)"');
    expect(clean).toContain('data:image/png;base64,');
    expect(clean).toContain('<circle r="2"');
  });
  it('leaves nothing of what is not an SVG', () => {
    expect(looksLikeSvg('<html><script>1</script></html>')).toBe(false);
    expect(looksLikeSvg('\uFEFF<?xml version="1.0"?>\n<!-- logo --><svg xmlns="http://www.w3.org/2000/svg"/>')).toBe(true);
  });
});
