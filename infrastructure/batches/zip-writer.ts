import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { ZipWriter } from '../../application/ports/batch-files.js';

/** Formats that are compressed already: deflating them again costs CPU and saves nothing. */
const STORED_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'webp', 'gif', 'pdf', 'mp4', 'webm', 'zip']);

const isStored = (name: string) => STORED_EXTENSIONS.has(name.slice(name.lastIndexOf('.') + 1).toLowerCase());

/**
 * yazl keeps every entry's stream getter until the archive ends; a getter that holds the stream
 * would keep each finished entry's bytes (a stream keeps what it was made from) alive to the end.
 * This one lets go of the stream as it hands it over.
 */
const handedOverOnce = (stream: Readable) => {
  const held = [stream];
  return (take: (error: null, stream: Readable) => void) => {
    for (const taken of held.splice(0)) take(null, taken);
  };
};

/**
 * Streams a ZIP with yazl, which writes each entry's header, data and data descriptor as the data
 * arrives and switches to ZIP64 records past 4 GB or 65,535 entries. The next entry is opened only
 * once the current one has been read to its end, so one file at a time is in flight whatever the
 * count, and `out`'s backpressure reaches back to the entry being read through the pipes.
 *
 * On any failure (an entry that cannot be opened or read, `out` failing or closed by a client that
 * went away) the archive is abandoned: `out` is destroyed, so nobody takes a truncated ZIP for a
 * whole one, no further entry is opened, and the promise rejects with the cause.
 */
export const streamedZipWriter: ZipWriter = {
  async write(entries, out) {
    const zip = new ZipFile();
    const delivery = pipeline(zip.outputStream, out);
    let deliveryError: { readonly cause: unknown } | undefined;
    // Settles only by failing while entries are being added: the archive cannot end before zip.end().
    const deliveryFailed = new Promise<never>((_, reject) => {
      delivery.catch((cause: unknown) => {
        deliveryError = { cause };
        reject(cause);
      });
    });
    deliveryFailed.catch(() => {});
    let reading: Readable | undefined;
    try {
      for await (const entry of entries) {
        if (deliveryError !== undefined) throw deliveryError.cause;
        const content = await entry.open();
        if (content === null) continue;
        reading = Buffer.isBuffer(content) ? Readable.from([content]) : content;
        zip.addReadStreamLazy(entry.name, { compress: !isStored(entry.name) }, handedOverOnce(reading));
        await Promise.race([finished(reading, { writable: false }), deliveryFailed]);
      }
      zip.end();
      await delivery;
    } catch (error) {
      reading?.destroy();
      out.destroy(error instanceof Error ? error : new Error(String(error)));
      await delivery.catch(() => {});
      throw error;
    }
  },
};
