import { createHash } from 'node:crypto';
import { PDFDict, PDFDocument, PDFHeader, PDFHexString, PDFName, PDFStream, PDFString, ParseSpeeds } from 'pdf-lib';
import sharp from 'sharp';

/*
 * PDF/A-2b (ISO 19005-2, level B: the look is preserved) made from Chromium's PDF. Chromium already
 * embeds every font and never encrypts; what it lacks is said here: XMP metadata that identifies the
 * standard and mirrors the Info dictionary, an output intent that gives DeviceRGB a meaning (sRGB),
 * and a file identifier. Anything that could run or change the document is removed.
 */

const OUTPUT_CONDITION = 'sRGB IEC61966-2.1';
/** Actions PDF/A-2 forbids (ISO 19005-2, 6.5.1): they run code, play media or change the document. */
const FORBIDDEN_ACTIONS = new Set(['JavaScript', 'Launch', 'Sound', 'Movie', 'ResetForm', 'ImportData', 'Hide', 'SetOCGState', 'Rendition', 'Trans', 'GoTo3DView']);
const ACTION_KEYS = [PDFName.of('A'), PDFName.of('OpenAction')];

/*
 * libvips ships an sRGB profile (ICC v4, which PDF/A-2 accepts) and sharp attaches it to an image on
 * request: reading it back gives its bytes without another package or file.
 */
let srgbProfile: Promise<Buffer> | undefined;
const srgbIcc = (): Promise<Buffer> =>
  (srgbProfile ??= (async () => {
    const image = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#ffffff' } }).withIccProfile('srgb').png().toBuffer();
    const { icc } = await sharp(image).metadata();
    if (!icc) throw new Error('sharp attached no sRGB profile');
    return icc;
  })());

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** XMP dates to the second, as the Info dictionary's dates are written. */
const xmpDate = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
const wholeSecond = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

interface DocumentInfo {
  readonly title?: string;
  readonly author?: string;
  readonly subject?: string;
  readonly keywords?: string;
  readonly creator?: string;
  readonly producer?: string;
  readonly created: Date;
  readonly modified: Date;
}

/** The XMP packet PDF/A requires: its identification, and every Info entry with the same value. */
export const xmpMetadata = (info: DocumentInfo): string => {
  const properties = [
    '<pdfaid:part>2</pdfaid:part>',
    '<pdfaid:conformance>B</pdfaid:conformance>',
    info.title === undefined ? '' : `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xml(info.title)}</rdf:li></rdf:Alt></dc:title>`,
    info.author === undefined ? '' : `<dc:creator><rdf:Seq><rdf:li>${xml(info.author)}</rdf:li></rdf:Seq></dc:creator>`,
    info.subject === undefined ? '' : `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xml(info.subject)}</rdf:li></rdf:Alt></dc:description>`,
    info.keywords === undefined ? '' : `<pdf:Keywords>${xml(info.keywords)}</pdf:Keywords>`,
    info.creator === undefined ? '' : `<xmp:CreatorTool>${xml(info.creator)}</xmp:CreatorTool>`,
    info.producer === undefined ? '' : `<pdf:Producer>${xml(info.producer)}</pdf:Producer>`,
    `<xmp:CreateDate>${xmpDate(info.created)}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${xmpDate(info.modified)}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${xmpDate(info.modified)}</xmp:MetadataDate>`,
  ].filter(Boolean);
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">',
    ...properties,
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
};

/** Drops what PDF/A forbids wherever it is: additional actions, forbidden actions, interpolated images. */
const removeForbidden = (document: PDFDocument) => {
  const { context } = document;
  document.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.delete(PDFName.of('JavaScript'));
  for (const [, object] of context.enumerateIndirectObjects()) {
    const dict = object instanceof PDFDict ? object : object instanceof PDFStream ? object.dict : undefined;
    if (!dict) continue;
    dict.delete(PDFName.of('AA'));
    for (const key of ACTION_KEYS) {
      // /A is an action on annotations and outline items, but attributes (an array) on structure elements.
      const action = dict.lookup(key);
      const type = action instanceof PDFDict ? action.lookupMaybe(PDFName.of('S'), PDFName)?.decodeText() : undefined;
      if (type !== undefined && FORBIDDEN_ACTIONS.has(type)) dict.delete(key);
    }
    // Image smoothing is left to each viewer, so PDF/A forbids asking for it (6.2.8).
    if (dict.lookupMaybe(PDFName.of('Subtype'), PDFName)?.decodeText() === 'Image') dict.delete(PDFName.of('Interpolate'));
  }
};

/** The Info dictionary's values, normalized to what both it and the XMP can say alike. */
const infoOf = (document: PDFDocument, now: Date): DocumentInfo => {
  const created = wholeSecond(document.getCreationDate() ?? now);
  return {
    title: document.getTitle(),
    author: document.getAuthor(),
    subject: document.getSubject(),
    keywords: document.getKeywords(),
    creator: document.getCreator(),
    producer: document.getProducer(),
    created,
    modified: wholeSecond(document.getModificationDate() ?? created),
  };
};

/**
 * Rewrites a PDF as PDF/A-2b. `now` dates a document that carries no dates of its own. The
 * identifier is the original file's digest, so the same print always gets the same identifier.
 */
export const toPdfA2b = async (pdf: Uint8Array, now: Date): Promise<Buffer> => {
  // Parsing yields to the event loop every so many objects, so other renders' page traffic goes on.
  const document = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fast });
  const { context, catalog } = document;
  removeForbidden(document);

  const info = infoOf(document, now);
  // Written again in the one format the XMP mirrors (D:YYYYMMDDHHmmSSZ).
  document.setCreationDate(info.created);
  document.setModificationDate(info.modified);
  // Unfiltered, as PDF/A asks, and UTF-8 like every XMP packet.
  const metadata = context.stream(Buffer.from(xmpMetadata(info), 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  catalog.set(PDFName.of('Metadata'), context.register(metadata));

  const profile = context.flateStream(await srgbIcc(), { N: 3 });
  const intent = context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of(OUTPUT_CONDITION),
    Info: PDFString.of(OUTPUT_CONDITION),
    DestOutputProfile: context.register(profile),
  });
  catalog.set(PDFName.of('OutputIntents'), context.obj([context.register(intent)]));

  const id = PDFHexString.of(createHash('md5').update(pdf).digest('hex'));
  context.trailerInfo.ID = context.obj([id, id]);
  // PDF/A-2 is based on PDF 1.7, which has the object streams the file is saved with.
  context.header = PDFHeader.forVersion(1, 7);
  return Buffer.from(await document.save({ useObjectStreams: true, objectsPerTick: ParseSpeeds.Fast }));
};
