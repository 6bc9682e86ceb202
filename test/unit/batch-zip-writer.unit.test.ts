import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { buffer as collect } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPromise } from 'yauzl';
import type { ZipEntry } from '../../application/ports/batch-files.js';
import { streamedZipWriter } from '../../infrastructure/batches/zip-writer.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'batch-zip-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function* entriesOf(list: readonly ZipEntry[]): AsyncIterable<ZipEntry> {
  yield* list;
}

/** Every file of an archive: its name, its bytes, and whether it was deflated (8) or stored (0). */
const unzip = async (path: string) => {
  const zip = await openPromise(path);
  const files: { name: string; bytes: Buffer; method: number }[] = [];
  for await (const entry of zip.eachEntry()) {
    files.push({ name: entry.fileName, bytes: await collect(await zip.openReadStreamPromise(entry)), method: entry.compressionMethod });
  }
  return files;
};

/** A writable that keeps what it receives, in memory, for small archives. */
const memoryOut = () => {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { out, received: () => Buffer.concat(chunks) };
};

const STORED = 0;
const DEFLATED = 8;

describe('streamed ZIP writer', () => {
  it('writes the entries that open, in order, stores media as they are and deflates text', async () => {
    const png = Buffer.from('\x89PNG pretend image bytes, already compressed', 'latin1');
    const csv = 'id,name\n'.concat('1,repeated text\n'.repeat(200));
    const path = join(folder, 'three.zip');
    await streamedZipWriter.write(
      entriesOf([
        { name: 'card 1.png', open: async () => png },
        { name: 'card 2.png', open: async () => null },
        { name: 'summary.csv', open: async () => Readable.from([Buffer.from(csv.slice(0, 100)), Buffer.from(csv.slice(100))]) },
      ]),
      createWriteStream(path),
    );
    const files = await unzip(path);
    expect(files.map(({ name }) => name)).toEqual(['card 1.png', 'summary.csv']);
    expect(files[0]).toEqual({ name: 'card 1.png', bytes: png, method: STORED });
    expect(files[1]?.bytes.toString()).toBe(csv);
    expect(files[1]?.method).toBe(DEFLATED);
  });

  it('writes an empty archive when no entry opens', async () => {
    const path = join(folder, 'empty.zip');
    await streamedZipWriter.write(entriesOf([{ name: 'gone.png', open: async () => null }]), createWriteStream(path));
    expect(await unzip(path)).toEqual([]);
  });

  it('sends the first bytes before the second entry is opened', async () => {
    const { out, received } = memoryOut();
    const receivedWhenSecondOpened: number[] = [];
    await streamedZipWriter.write(
      entriesOf([
        { name: 'first.pdf', open: async () => Readable.from([Buffer.alloc(1000, 1), Buffer.alloc(1000, 2)]) },
        {
          name: 'second.pdf',
          open: async () => {
            receivedWhenSecondOpened.push(received().length);
            return Buffer.alloc(10, 3);
          },
        },
      ]),
      out,
    );
    expect(receivedWhenSecondOpened).toHaveLength(1);
    expect(receivedWhenSecondOpened[0]).toBeGreaterThan(0);
  });

  it('writes 100 MB in 2,000 entries with memory that does not grow with them', { timeout: 120_000 }, async () => {
    const ENTRIES = 2_000;
    const SIZE = 50 * 1024;
    const path = join(folder, 'many.zip');
    let opened = 0;
    async function* manyEntries(): AsyncIterable<ZipEntry> {
      for (let index = 0; index < ENTRIES; index += 1) {
        yield {
          name: `render-${index + 1}.png`,
          open: async () => {
            opened += 1;
            // Fresh bytes per entry, in chunks, as a download from storage would arrive.
            return index % 2 === 0 ? Buffer.alloc(SIZE, index % 251) : Readable.from([Buffer.alloc(SIZE / 2, index % 251), Buffer.alloc(SIZE / 2, 7)]);
          },
        };
      }
    }
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      await streamedZipWriter.write(manyEntries(), createWriteStream(path));
    } finally {
      clearInterval(sampler);
    }
    expect(opened).toBe(ENTRIES);
    expect(peak - baseline).toBeLessThan(100 * 1024 * 1024);
    const zip = await openPromise(path);
    expect(zip.entryCount).toBe(ENTRIES);
    zip.close();
  });

  it('reads an entry no faster than a slow receiver takes it', async () => {
    const CHUNK = 64 * 1024;
    let produced = 0;
    let consumed = 0;
    let furthestAhead = 0;
    const endless = new Readable({
      read() {
        if (produced >= 200) this.push(null);
        else {
          produced += 1;
          this.push(Buffer.alloc(CHUNK, produced % 256));
        }
      },
    });
    const slowOut = new Writable({
      highWaterMark: CHUNK,
      write(chunk: Buffer, _encoding, done) {
        consumed += chunk.length;
        furthestAhead = Math.max(furthestAhead, produced * CHUNK - consumed);
        setImmediate(done);
      },
    });
    await streamedZipWriter.write(entriesOf([{ name: 'video.mp4', open: async () => endless }]), slowOut);
    expect(consumed).toBeGreaterThan(200 * CHUNK);
    // A handful of stream buffers between the source and the receiver, not the 12.5 MB of the entry.
    expect(furthestAhead).toBeLessThan(2 * 1024 * 1024);
  });

  it('rejects with an entry stream\'s error, opens nothing after it and destroys the output', async () => {
    const { out } = memoryOut();
    const opened: string[] = [];
    const failing = (name: string): ZipEntry => ({
      name,
      open: async () => {
        opened.push(name);
        return new Readable({
          read() {
            this.destroy(new Error('storage read failed'));
          },
        });
      },
    });
    const fine = (name: string): ZipEntry => ({
      name,
      open: async () => {
        opened.push(name);
        return Buffer.from(name);
      },
    });
    await expect(streamedZipWriter.write(entriesOf([fine('a.png'), failing('b.png'), fine('c.png')]), out)).rejects.toThrow('storage read failed');
    expect(opened).toEqual(['a.png', 'b.png']);
    expect(out.destroyed).toBe(true);
  });

  it('rejects when an entry cannot be opened', async () => {
    const { out } = memoryOut();
    const entries = entriesOf([{ name: 'a.png', open: () => Promise.reject(new Error('render failed')) }]);
    await expect(streamedZipWriter.write(entries, out)).rejects.toThrow('render failed');
    expect(out.destroyed).toBe(true);
  });

  it('stops opening entries once the receiver has gone away', async () => {
    let opened = 0;
    const leaving = new Writable({
      write(_chunk, _encoding, done) {
        done();
        // A client that disconnects: the response closes without an error of its own.
        this.destroy();
      },
    });
    async function* manyEntries(): AsyncIterable<ZipEntry> {
      for (let index = 0; index < 100; index += 1) {
        yield {
          name: `render-${index + 1}.png`,
          open: async () => {
            opened += 1;
            return Readable.from([Buffer.alloc(10_000, 1), Buffer.alloc(10_000, 2)]);
          },
        };
      }
    }
    await expect(streamedZipWriter.write(manyEntries(), leaving)).rejects.toThrow(/premature close/i);
    expect(opened).toBeLessThanOrEqual(2);
  });
});
