import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFStream, PDFString, StandardFonts, decodePDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { htmlDocument } from '../../application/renders/html-document.js';
import { cacheMaterial } from '../../domain/renders/cache-key.js';
import { eventSchemaRegistry } from '../../infrastructure/event-schemas/event-schema-registry.js';
import type { EventEnvelope } from '../../domain/shared/events.js';
import { toPdfA2b, xmpMetadata } from '../../infrastructure/rendering/pdf-a.js';
import { countPdfPages } from '../../infrastructure/rendering/pdf-pages.js';
import { renderRequested, renderSpec } from '../support/render-events.js';

const CREATED = new Date('2026-03-04T05:06:07Z');

/** A small PDF with what PDF/A forbids: a script run on opening, additional actions, a smoothed image. */
const scriptedPdf = async () => {
  const document = await PDFDocument.create({ updateMetadata: false });
  document.setTitle('Quarterly <report> & "notes"');
  document.setProducer('unit test');
  document.setCreationDate(CREATED);
  document.setModificationDate(CREATED);
  const page = document.addPage([200, 100]);
  page.drawText('Hello', { x: 10, y: 50, size: 12, font: await document.embedFont(StandardFonts.Helvetica) });
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#336699' } }).png().toBuffer();
  const image = await document.embedPng(png);
  page.drawImage(image, { x: 100, y: 10, width: 50, height: 50 });
  // Images are written when saved: the image's own dictionary exists only in the file read back.
  const scripted = await PDFDocument.load(await document.save(), { updateMetadata: false });
  const { context, catalog } = scripted;
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) object.dict.set(PDFName.of('Interpolate'), context.obj(true));
  }
  catalog.set(PDFName.of('OpenAction'), context.obj({ S: 'JavaScript', JS: PDFString.of('app.alert(1)') }));
  catalog.set(PDFName.of('Names'), context.obj({ JavaScript: context.obj({ Names: [] }) }));
  scripted.getPage(0).node.set(PDFName.of('AA'), context.obj({ O: context.obj({ S: 'JavaScript', JS: PDFString.of('app.alert(2)') }) }));
  return scripted.save({ useObjectStreams: false });
};

describe('PDF/A-2b post-processing', () => {
  it('identifies the standard in XMP that mirrors the Info dictionary, adds an sRGB output intent and an ID, and removes scripts', async () => {
    const original = await scriptedPdf();
    expect(Buffer.from(original).toString('latin1')).toMatch(/\/Interpolate true[\s\S]*\/OpenAction|\/OpenAction[\s\S]*\/Interpolate true/);
    const archived = await PDFDocument.load(await toPdfA2b(original, new Date('2030-01-01T00:00:00Z')), { updateMetadata: false });
    const { catalog, context } = archived;

    const xmp = Buffer.from((catalog.lookup(PDFName.of('Metadata'), PDFStream) as PDFRawStream).getContents()).toString('utf8');
    expect((catalog.lookup(PDFName.of('Metadata'), PDFStream) as PDFRawStream).dict.get(PDFName.of('Filter'))).toBeUndefined();
    expect(xmp).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Quarterly &lt;report&gt; &amp; &quot;notes&quot;</rdf:li>');
    expect(xmp).toContain('<pdf:Producer>unit test</pdf:Producer>');
    // The document's own dates, not the fallback, in both places.
    expect(xmp).toContain('<xmp:CreateDate>2026-03-04T05:06:07Z</xmp:CreateDate>');
    expect(archived.getTitle()).toBe('Quarterly <report> & "notes"');
    expect(archived.getCreationDate()).toEqual(CREATED);

    const intent = catalog.lookup(PDFName.of('OutputIntents'), PDFArray).lookup(0, PDFDict);
    expect(intent.lookup(PDFName.of('S'), PDFName)).toBe(PDFName.of('GTS_PDFA1'));
    expect(intent.lookup(PDFName.of('OutputConditionIdentifier'), PDFString).decodeText()).toBe('sRGB IEC61966-2.1');
    const icc = Buffer.from(decodePDFRawStream((intent.lookup(PDFName.of('DestOutputProfile'), PDFStream) as PDFRawStream)).decode());
    expect(icc.subarray(16, 20).toString('latin1')).toBe('RGB ');
    expect(icc.subarray(36, 40).toString('latin1')).toBe('acsp');

    // The identifier is in the trailer (here the cross-reference stream's dictionary): the original's digest, twice.
    const saved = Buffer.from(await toPdfA2b(original, CREATED)).toString('latin1');
    const [, first, second] = /\/ID\s*\[\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*\]/.exec(saved) ?? [];
    expect(first?.toLowerCase()).toBe(createHash('md5').update(original).digest('hex'));
    expect(second).toBe(first);
    expect(saved.startsWith('%PDF-1.7')).toBe(true);

    expect(catalog.get(PDFName.of('OpenAction'))).toBeUndefined();
    expect(catalog.lookup(PDFName.of('Names'), PDFDict).get(PDFName.of('JavaScript'))).toBeUndefined();
    expect(archived.getPage(0).node.get(PDFName.of('AA'))).toBeUndefined();
    const images = context.enumerateIndirectObjects().filter(([, object]) => object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'));
    expect(images.length).toBeGreaterThan(0);
    for (const [, image] of images) expect((image as PDFRawStream).dict.get(PDFName.of('Interpolate'))).toBeUndefined();
  });

  it('dates a document that has no dates of its own, the same in XMP and Info', () => {
    const xmp = xmpMetadata({ created: CREATED, modified: CREATED });
    expect(xmp).toContain('<xmp:CreateDate>2026-03-04T05:06:07Z</xmp:CreateDate>');
    expect(xmp).not.toContain('dc:title');
  });
});

describe('pages of a PDF', () => {
  it('counts page objects, not strings that look like them', async () => {
    const document = await PDFDocument.create();
    document.setTitle('<</Type /Page>> 1 0 obj <</Type /Page');
    for (let i = 0; i < 3; i++) document.addPage([100, 100]);
    expect(countPdfPages(await document.save({ useObjectStreams: false }))).toBe(3);
  });
});

describe('paged documents', () => {
  const size = { width: 794, height: 1123, scaleFactor: 1, waitTime: 0 };

  it('clips a design to its size and lets a document flow', () => {
    expect(htmlDocument('<p>x</p>', '', size).html).toContain('width:794px;height:1123px;overflow:hidden');
    const paged = htmlDocument('<p>x</p>', '', { ...size, paged: true, title: 'Invoice' });
    expect(paged.html).not.toMatch(/height:1123px|overflow:hidden/);
    expect(paged).toMatchObject({ paged: true, title: 'Invoice' });
  });
});

describe('pdfStandard in the render spec', () => {
  it('splits the cache and leaves the keys of requests without it as they were', () => {
    const plain = renderSpec({ format: 'pdf' });
    const archived = renderSpec({ format: 'pdf', pdfStandard: 'PDF/A-2b' });
    expect(cacheMaterial('org', archived, null)).not.toBe(cacheMaterial('org', plain, null));
    expect(cacheMaterial('org', plain, null)).not.toContain('pdfStandard');
  });

  it('is optional in RenderRequested, whose older events parse as they are, and takes only known standards', () => {
    const envelope = (spec: Record<string, unknown>) =>
      ({
        ...renderRequested({ requestId: 'r1', orgId: 'org', requestedAt: '2026-01-01T00:00:00.000Z', spec }),
        metadata: { eventId: 'e', schemaVersion: 2, occurredAt: '2026-01-01T00:00:00.000Z', orgId: 'org', actor: 'system', correlationId: 'c', causationId: 'c' },
      }) as EventEnvelope;
    expect(() => eventSchemaRegistry.prepare(envelope({ format: 'pdf' }))).not.toThrow();
    expect(eventSchemaRegistry.prepare(envelope({ format: 'pdf', pdfStandard: 'PDF/A-2b' })).data).toMatchObject({ spec: { pdfStandard: 'PDF/A-2b' } });
    expect(() => eventSchemaRegistry.prepare(envelope({ format: 'pdf', pdfStandard: 'PDF/A-1a' }))).toThrow(/pdfStandard/);
  });
});
