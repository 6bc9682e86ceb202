import { describe, expect, it } from 'vitest';
import { reachesOutside, unescapeCss } from '../../infrastructure/uploads/css-references.js';
import { createImageInspector, MAX_SVG_BYTES } from '../../infrastructure/uploads/image-inspector.js';
import { sanitizeSvg } from '../../infrastructure/uploads/svg-sanitizer.js';
import { looksLikeSvg } from '../../infrastructure/uploads/svg-sniffing.js';
import { MAX_SVG_DEPTH, MAX_SVG_ELEMENTS } from '../../infrastructure/uploads/svg-structure.js';
import { expectDomainError } from '../support/expect-domain-error.js';

const SVG = 'xmlns="http://www.w3.org/2000/svg"';
const svg = (body: string, attributes = '') => `<svg ${SVG}${attributes}>${body}</svg>`;

describe('sanitizeSvg', () => {
  const hostile =
    `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">` +
    `<script>alert(2)</script><style>@import url(http://evil.example/x.css)</style>` +
    `<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>` +
    `<rect width="10" height="10" fill="url(#g)"/><rect width="5" height="5" style="fill:url(http://evil.example/a)" filter="url(http://evil.example/f#x)"/>` +
    `<image href="http://evil.example/x.png" width="5" height="5"/><image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>` +
    `<a href="javascript:alert(3)"><circle r="2"/></a><foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="http://evil.example"></iframe></foreignObject></svg>`;

  it('drops scripts, handlers, style elements, links, foreign content and every external reference', async () => {
    const clean = await sanitizeSvg(hostile);
    expect(clean).not.toMatch(/script|onload|alert|@import|evil\.example|foreignObject|iframe|javascript/i);
  });
  it('keeps the drawing, its references to itself and embedded raster images, as XML with SVG names in their case', async () => {
    const clean = await sanitizeSvg(hostile);
    expect(clean).toContain('viewBox="0 0 10 10"');
    expect(clean).toContain('<linearGradient id="g">');
    expect(clean).toContain('fill="url(#g)"');
    expect(clean).toContain('data:image/png;base64,');
    expect(clean).toMatch(/<circle r="2" ?\/>/);
  });
  it('leaves nothing of what is not an SVG', () => {
    expect(looksLikeSvg('<html><script>1</script></html>')).toBe(false);
    expect(looksLikeSvg('\uFEFF<?xml version="1.0"?>\n<!-- logo --><svg xmlns="http://www.w3.org/2000/svg"/>')).toBe(true);
  });

  describe('CSS read as the browser reads it', () => {
    it.each([
      ['a hex escape', 'fill:u\\72l(http://10.0.0.1/x)'],
      ['an escape of the first letter', 'fill:\\75rl(http://10.0.0.1/x)'],
      ['a six-digit escape', 'fill:u\\000072l(http://10.0.0.1/x)'],
      ['an escape ended by a space', 'fill:u\\72 l(http://10.0.0.1/x)'],
      ['a plain-letter escape', 'fill:\\u\\r\\l(http://10.0.0.1/x)'],
      ['a comment inside', 'fill:/**/url(http://10.0.0.1/x)'],
      ['image-set()', "fill:image-set('http://10.0.0.1/x.png' 1x)"],
      ['-webkit-image-set()', 'fill:-webkit-image-set(\\27http://10.0.0.1/x.png\\27 1x)'],
      ['an escaped image-set()', "fill:im\\61ge-set('http://10.0.0.1/x.png' 1x)"],
      ['src()', "fill:src('http://10.0.0.1/x')"],
    ])('drops a style attribute that loads through %s', async (_name, style) => {
      const clean = await sanitizeSvg(svg(`<rect width="5" height="5" style="${style}"/>`));
      expect(clean).not.toContain('10.0.0.1');
      expect(clean).toContain('<rect width="5" height="5"');
    });
    it('drops presentation attributes that load through an escaped url() or image-set(), and keeps url(#id)', async () => {
      const clean = await sanitizeSvg(svg(`<rect fill="u\\72l(http://10.0.0.1/f)" filter="image-set('http://10.0.0.1/i' 1x)" mask="url(#m)" width="1" height="1"/>`));
      expect(clean).not.toContain('10.0.0.1');
      expect(clean).toContain('mask="url(#m)"');
    });
    it('keeps styles that load nothing', async () => {
      expect(await sanitizeSvg(svg('<rect style="fill:red;stroke:url(#g)" width="1" height="1"/>'))).toContain('style="fill:red;stroke:url(#g)"');
    });
    it('undoes escapes as CSS does', () => {
      expect(unescapeCss('u\\72l( \\000072 \\41 B \\"x\\" /* c */)')).toBe('url( rAB "x" )');
      expect(unescapeCss('\\0 \\110000 \\d800')).toBe('\uFFFD\uFFFD\uFFFD');
      expect(reachesOutside('url( "#a")')).toBe(false);
      expect(reachesOutside('url(#a) url(b)')).toBe(true);
    });
  });

  describe('namespaces', () => {
    it('drops namespace declarations below the root, so nothing below it switches to XHTML', async () => {
      const clean = await sanitizeSvg(
        svg(`<g xmlns="http://www.w3.org/1999/xhtml"><iframe src="http://10.0.0.1/"/></g><g xmlns:h="http://www.w3.org/1999/xhtml"><h:iframe src="http://10.0.0.1/"/><rect width="1" height="1"/></g>`),
      );
      expect(clean).not.toMatch(/xhtml|iframe|10\.0\.0\.1/);
      expect(clean).toMatch(/<g><rect width="1" height="1" ?\/><\/g>/);
      expect(clean.match(/xmlns/g)).toHaveLength(1);
    });
    it('drops what the root declares beyond SVG and XLink, and the elements of those namespaces', async () => {
      const clean = await sanitizeSvg(`<svg ${SVG} xmlns:h="http://www.w3.org/1999/xhtml"><desc><h:iframe src="http://10.0.0.1/"/></desc></svg>`);
      expect(clean).not.toMatch(/xhtml|iframe|10\.0\.0\.1/);
    });
    it('drops processing instructions and the doctype, which could load a style sheet', async () => {
      const clean = await sanitizeSvg(`<?xml version="1.0"?><?xml-stylesheet href="http://10.0.0.1/x.css"?><!DOCTYPE svg><svg ${SVG}><?xml-stylesheet href="http://10.0.0.1/y.css"?><rect width="1" height="1"/></svg>`);
      expect(clean).not.toMatch(/stylesheet|DOCTYPE|10\.0\.0\.1/);
    });
  });

  describe('parsed as XML', () => {
    it.each([
      ['an unclosed element', svg('<g><rect/>')],
      ['an element closed twice', svg('<g></g></g>')],
      ['an attribute without quotes', svg('<rect width=5/>')],
      ['an entity declared in the doctype (billion laughs)', `<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><svg ${SVG}>&b;</svg>`],
      ['an undeclared prefix', svg('<x:rect/>')],
      ['HTML that a browser would forgive', `<svg ${SVG}><p>text<br></svg>`],
    ])('refuses %s with a 400', async (_name, text) => {
      const error = await expectDomainError(sanitizeSvg(text), 'validation');
      expect(error.message).toMatch(/not well-formed XML/);
    });
    it('refuses a root that is not <svg> in the SVG namespace', async () => {
      await expectDomainError(sanitizeSvg('<svg><rect/></svg>'), 'validation');
      await expectDomainError(sanitizeSvg(`<g ${SVG}/>`), 'validation');
    });
    it('reads CDATA as text, as a browser does, not as markup', async () => {
      const clean = await sanitizeSvg(svg('<text><![CDATA[<img src=x onerror=alert(1)>]]></text>'));
      expect(clean).not.toMatch(/<img/);
    });
  });

  describe('shape, checked before any DOM is built', () => {
    const nested = (depth: number) => svg('<g>'.repeat(depth) + '</g>'.repeat(depth));
    it(`accepts ${MAX_SVG_DEPTH} levels of nesting and refuses one more`, async () => {
      expect(await sanitizeSvg(nested(MAX_SVG_DEPTH - 1))).toContain('<g>');
      const error = await expectDomainError(sanitizeSvg(nested(MAX_SVG_DEPTH)), 'validation');
      expect(error.message).toMatch(/nests elements more than 256 deep/);
    });
    it('refuses 20,000 nested groups at once, in linear time', async () => {
      const started = performance.now();
      await expectDomainError(sanitizeSvg(nested(20_000)), 'validation');
      expect(performance.now() - started).toBeLessThan(1000);
    });
    it(`refuses an SVG of more than ${MAX_SVG_BYTES} bytes before handing it to the sanitizer`, async () => {
      const sanitized: number[] = [];
      const inspector = createImageInspector(async (content) => {
        sanitized.push(content.length);
        return sanitizeSvg(content.toString('utf8'));
      });
      const drawing = (bytes: number) => Buffer.from(svg(`<path d="${'M1 2 '.repeat(bytes / 5)}"/>`, ' width="10" height="10"'));
      const error = await expectDomainError(inspector.inspect(drawing(MAX_SVG_BYTES), { maxPixels: 1_000_000 }), 'validation');
      expect(error.message).toMatch(/an SVG of more than 5242880 bytes/);
      expect(sanitized).toEqual([]);
      expect((await inspector.inspect(drawing(MAX_SVG_BYTES - 1000), { maxPixels: 1_000_000 })).contentType).toBe('image/svg+xml');
      expect(sanitized).toHaveLength(1);
    }, 30_000);
    it(`refuses more than ${MAX_SVG_ELEMENTS} elements without building them`, async () => {
      const started = performance.now();
      const error = await expectDomainError(sanitizeSvg(svg('<rect/>'.repeat(MAX_SVG_ELEMENTS))), 'validation');
      expect(error.message).toMatch(/more than 20000 elements/);
      expect(performance.now() - started).toBeLessThan(2000);
    });
  });
});
