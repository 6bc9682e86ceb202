import { PDFDocument, PDFHexString, PDFName, type PDFPage } from 'pdf-lib';
import type { PdfMerger } from '../../application/ports/batch-files.js';

interface Bookmark {
  readonly title: string;
  readonly page: PDFPage;
}

/**
 * pdf-lib has no outline API, so the outline is built as ISO 32000-1 (12.3.3) lays it out: a root
 * dictionary naming its first and last items and their count, and items chained by Prev and Next,
 * each with a destination: the top of its page, at the reader's current zoom.
 */
const addOutline = (document: PDFDocument, bookmarks: readonly Bookmark[]) => {
  const { context, catalog } = document;
  const rootRef = context.nextRef();
  const items = bookmarks.map((bookmark) => ({ ...bookmark, ref: context.nextRef() }));
  items.forEach(({ title, page, ref }, index) => {
    const { y, height } = page.getMediaBox();
    context.assign(
      ref,
      context.obj({
        // A hex string of UTF-16 text, so any title reads back as written.
        Title: PDFHexString.fromText(title),
        Parent: rootRef,
        Prev: items[index - 1]?.ref,
        Next: items[index + 1]?.ref,
        Dest: [page.ref, 'XYZ', null, y + height, null],
      }),
    );
  });
  context.assign(rootRef, context.obj({ Type: 'Outlines', First: items[0]?.ref, Last: items.at(-1)?.ref, Count: items.length }));
  catalog.set(PDFName.of('Outlines'), rootRef);
  // Opens with the bookmarks shown: in a merged batch they are the table of contents.
  catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));
};

/**
 * Merges with pdf-lib, copying each part's pages (and what they use: fonts, images) into one new
 * document. Parts are read one at a time and let go once copied, but the merged document is held in
 * memory whole until saved, so the largest batch a merge takes is bounded by the caller's limit on
 * rows, not by this adapter.
 */
export const pdfLibMerger: PdfMerger = {
  async merge(parts) {
    const merged = await PDFDocument.create();
    const bookmarks: Bookmark[] = [];
    for await (const { title, content } of parts) {
      const part = await PDFDocument.load(content, { updateMetadata: false });
      const pages = await merged.copyPages(part, part.getPageIndices());
      for (const page of pages) merged.addPage(page);
      const [firstPage] = pages;
      // A part without pages has nowhere for its bookmark to point.
      if (firstPage !== undefined) bookmarks.push({ title, page: firstPage });
    }
    if (merged.getPageCount() === 0) throw new Error('There is no page to merge: every part was empty or none was given');
    addOutline(merged, bookmarks);
    return Buffer.from(await merged.save());
  },
};
