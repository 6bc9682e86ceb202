import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, validationError } from '../../domain/shared/errors.js';
import type { HostPolicy } from '../rendering/network-guard.js';
import { guardedLookup } from '../security/guarded-lookup.js';

export interface SourceFetchOptions {
  /** The private-address guard every render's page goes through. */
  readonly hostPolicy: Pick<HostPolicy, 'assertUrlAllowed' | 'allowedAddress'>;
  readonly maxBytes: number;
  /** For the whole download, redirects included. */
  readonly signal: AbortSignal;
  readonly maxRedirects?: number;
}

/** How errors name a source: a data: URL can be a megabyte long. */
export const describeSource = (src: string) => (src.length > 120 ? `${src.slice(0, 117)}...` : src);

const decodeDataUrl = (src: string): Buffer => {
  const comma = src.indexOf(',');
  if (comma < 0) throw validationError(`the VIDEO source ${describeSource(src)} is not a valid data URL`);
  const meta = src.slice(0, comma);
  const payload = src.slice(comma + 1);
  return meta.endsWith(';base64') ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
};

/** Counts bytes as they pass and fails the stream once there are more than `max`. */
const byteLimit = (max: number, src: string) => {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(validationError(`the VIDEO source ${describeSource(src)} is larger than ${max} bytes`));
      else done(null, chunk);
    },
  });
};

type Answer = { readonly kind: 'redirect'; readonly location: string } | { readonly kind: 'body'; readonly response: http.IncomingMessage };

const request = (url: URL, options: SourceFetchOptions, lookup: LookupFunction): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.get(url, { lookup, signal: options.signal, headers: { 'user-agent': 'render-service-video/1', accept: 'video/*,*/*;q=0.5' } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.destroy();
        resolve({ kind: 'redirect', location: response.headers.location });
        return;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        reject(validationError(`the VIDEO source ${describeSource(url.href)} answered ${status}`));
        return;
      }
      const length = Number(response.headers['content-length']);
      if (Number.isFinite(length) && length > options.maxBytes) {
        response.destroy();
        reject(validationError(`the VIDEO source ${describeSource(url.href)} is larger than ${options.maxBytes} bytes`));
        return;
      }
      resolve({ kind: 'body', response });
    });
    outgoing.on('error', reject);
  });

const fetchFailure = (src: string, error: unknown, signal: AbortSignal): DomainError => {
  if (error instanceof DomainError) return error;
  if (signal.aborted) return validationError(`the VIDEO source ${describeSource(src)} could not be fetched in time`);
  const detail = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return validationError(`the VIDEO source ${describeSource(src)} could not be fetched: ${detail}`);
};

/**
 * Writes a VIDEO component's source to `file`. The service fetches it, not ffmpeg: ffmpeg's own
 * http client would connect wherever DNS says, around the private-address guard. Every hop of a
 * redirect is checked again, the body may not pass `maxBytes` and the whole download shares one
 * deadline (the signal). Whatever goes wrong is the template's input: a validation error.
 */
export const fetchVideoSource = async (src: string, file: string, options: SourceFetchOptions): Promise<void> => {
  if (src.startsWith('data:')) {
    const bytes = decodeDataUrl(src);
    if (bytes.length > options.maxBytes) throw validationError(`the VIDEO source ${describeSource(src)} is larger than ${options.maxBytes} bytes`);
    await writeFile(file, bytes);
    return;
  }
  const lookup = guardedLookup((host) => options.hostPolicy.allowedAddress(host));
  let url = src;
  try {
    for (let hop = 0; ; hop++) {
      // Checks the scheme and IP literals, which never reach the lookup.
      await options.hostPolicy.assertUrlAllowed(url);
      const answer = await request(new URL(url), options, lookup);
      if (answer.kind === 'body') {
        await pipeline(answer.response, byteLimit(options.maxBytes, src), createWriteStream(file), { signal: options.signal });
        return;
      }
      if (hop >= (options.maxRedirects ?? 3)) throw validationError(`the VIDEO source ${describeSource(src)} redirects too many times`);
      url = new URL(answer.location, url).href;
    }
  } catch (error) {
    throw fetchFailure(src, error, options.signal);
  }
};
