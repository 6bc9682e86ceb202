import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ResultLinks } from '../../application/ports/file-storage.js';

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
const EXPIRES_PATTERN = /^\d{1,12}$/;

/** Hrefs of stored results; a result created with `expires` gets an HMAC-signed, time-limited link. */
export const createResultLinks = ({ baseUrl, secret }: { baseUrl: string; secret: string }): ResultLinks => {
  const origin = baseUrl.replace(/\/+$/, '');
  const sign = (requestId: string, fileName: string, expires: number) =>
    createHmac('sha256', secret).update(`${requestId}/${fileName}/${expires}`).digest('hex');

  return {
    href(requestId, fileName, expiresAt) {
      const href = `${origin}/files/${encodeURIComponent(requestId)}/${encodeURIComponent(fileName)}`;
      if (expiresAt === null) return href;
      return `${href}?expires=${expiresAt}&signature=${sign(requestId, fileName, expiresAt)}`;
    },
    verify(requestId, fileName, query, nowSeconds, required) {
      const { expires, signature } = query;
      if (expires === undefined && signature === undefined) return !required;
      if (expires === undefined || signature === undefined || !EXPIRES_PATTERN.test(expires) || !SIGNATURE_PATTERN.test(signature)) return false;
      const expected = Buffer.from(sign(requestId, fileName, Number(expires)), 'hex');
      // Compared in constant time so the signature cannot be guessed byte by byte from response times.
      if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return false;
      return nowSeconds < Number(expires);
    },
  };
};
