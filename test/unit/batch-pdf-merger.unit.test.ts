import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfLibMerger } from '../../infrastructure/batches/pdf-merger.js';

const run = promisify(execFile);

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'batch-pdf-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A PDF whose pages each carry their own text, so the merged order can be read back. */
const pdfOf = async (texts: readonly string[]) => {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const text of texts) document.addPage([300, 200]).drawText(text, { x: 20, y: 100, size: 14, font });
  return Buffer.from(await document.save());
};

async function* partsOf(parts: readonly { title: string; content: Buffer }[]) {
  yield* parts;
}

const saved = async (name: string, content: Buffer) => {
  const path = join(folder, name);
  await writeFile(path, content);
  return path;
};

/** The outline as qpdf reads it: each top-level item's title and the page (from 1) it opens at. */
const outlineOf = async (path: string) => {
  const { stdout } = await run('qpdf', ['--json', '--json-key=outlines', path]);
  const { outlines } = JSON.parse(stdout) as { outlines: { title: string; destpageposfrom1: number; kids: unknown[] }[] };
  return outlines.map(({ title, destpageposfrom1, kids }) => ({ title, page: destpageposfrom1, kids: kids.length }));
};

describe('pdf-lib merger', () => {
  it('joins the parts in order with one bookmark per part at its first page', async () => {
    const merged = await pdfLibMerger.merge(
      partsOf([
        { title: 'Alice Martin', content: await pdfOf(['first part page one']) },
        { title: 'Bjørn Ødegård — №2', content: await pdfOf(['second part page one', 'second part page two']) },
        { title: '請求書 3', content: await pdfOf(['third part page one']) },
      ]),
    );
    const path = await saved('merged.pdf', merged);

    const { stdout: info } = await run('pdfinfo', [path]);
    expect(info).toMatch(/^Pages:\s+4$/m);

    const { stdout: text } = await run('pdftotext', ['-layout', path, '-']);
    const order = ['first part page one', 'second part page one', 'second part page two', 'third part page one'].map((line) => text.indexOf(line));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));

    expect(await outlineOf(path)).toEqual([
      { title: 'Alice Martin', page: 1, kids: 0 },
      { title: 'Bjørn Ødegård — №2', page: 2, kids: 0 },
      { title: '請求書 3', page: 4, kids: 0 },
    ]);
    await expect(run('qpdf', ['--check', path])).resolves.toMatchObject({ stdout: expect.stringContaining('No syntax or stream encoding errors') });
  });

  it('opens with the bookmarks shown', async () => {
    const merged = await PDFDocument.load(await pdfLibMerger.merge(partsOf([{ title: 'Only', content: await pdfOf(['only']) }])));
    expect(merged.catalog.get(PDFName.of('PageMode'))).toBe(PDFName.of('UseOutlines'));
  });

  it('refuses to make a PDF with no page', async () => {
    await expect(pdfLibMerger.merge(partsOf([]))).rejects.toThrow(/no page to merge/);
  });
});
