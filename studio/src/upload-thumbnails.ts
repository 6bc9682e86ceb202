import { useEffect, useState } from 'react';
import { api } from './api-client';
import { sameOriginLink } from './file-links';

/*
 * An upload's file needs the API key (x-api-key), which an <img src> cannot send: the studio reads
 * it with the key and shows it as a blob: URL (the page's CSP allows blob: images). Each file is
 * read once per tab and shared by every place that shows it, until it is deleted.
 */
const thumbnails = new Map<string, Promise<string>>();

const thumbnailOf = (href: string): Promise<string> => {
  let found = thumbnails.get(href);
  if (!found) {
    found = api.blob('GET', sameOriginLink(href, window.location.origin)).then((blob) => URL.createObjectURL(blob));
    // A failed read is tried again the next time the upload shows.
    found.catch(() => thumbnails.delete(href));
    thumbnails.set(href, found);
  }
  return found;
};

/** Frees a deleted upload's blob: URL. */
export const forgetThumbnail = (href: string): void => {
  void thumbnails.get(href)?.then((url) => URL.revokeObjectURL(url), () => undefined);
  thumbnails.delete(href);
};

/** A blob: URL of the upload's file once it has been read; null until then or when it cannot be read. */
export const useThumbnail = (href: string): string | null => {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setUrl(null);
    thumbnailOf(href).then(
      (found) => current && setUrl(found),
      () => current && setUrl(null),
    );
    return () => {
      current = false;
    };
  }, [href]);
  return url;
};
