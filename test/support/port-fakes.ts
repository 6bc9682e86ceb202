import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Clock, IdGenerator } from '../../application/ports/clock.js';
import { resolveByteRange, type FileStorage } from '../../application/ports/file-storage.js';
import type { Metrics, RenderAheadOutcome, RenderKind, RenderMetricOutcome, WebhookAttemptOutcome } from '../../application/ports/metrics.js';
import type { UrlGuard } from '../../application/ports/page-capture.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../application/ports/webhook-sender.js';
import { validationError } from '../../domain/shared/errors.js';

/** Small stand-ins for the ports application services need besides the event store and read models. */

export interface FakeClock extends Clock {
  advance(milliseconds: number): void;
  set(iso: string): void;
}

/** A clock that stands still until told to move. */
export const fakeClock = (start = '2026-03-01T12:00:00.000Z'): FakeClock => {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advance: (milliseconds) => {
      now += milliseconds;
    },
    set: (iso) => {
      now = new Date(iso).getTime();
    },
  };
};

/** uuidv7-shaped ids in a known order: the nth id a test will see is `sequentialId(n)`. */
export const sequentialId = (n: number): string => `01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

export const sequentialIds = (): IdGenerator & { readonly issued: string[] } => {
  const issued: string[] = [];
  return {
    issued,
    next() {
      const id = sequentialId(issued.length + 1);
      issued.push(id);
      return id;
    },
  };
};

export interface MemoryFileStorage extends FileStorage {
  /** Keys currently stored. */
  keys(): string[];
  readonly deleted: string[];
}

/** Files in a map; entity tags change with the content, as the real adapters' do. */
export const memoryFileStorage = (): MemoryFileStorage => {
  const files = new Map<string, { content: Buffer; contentType: string; etag: string }>();
  const deleted: string[] = [];
  return {
    deleted,
    keys: () => [...files.keys()],
    async put(key, content, contentType) {
      const bytes = Buffer.isBuffer(content) ? Buffer.from(content) : await buffer(content);
      files.set(key, { content: bytes, contentType, etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"` });
    },
    async get(key) {
      const file = files.get(key);
      return file ? Buffer.from(file.content) : null;
    },
    async stat(key) {
      const file = files.get(key);
      return file ? { size: file.content.length, etag: file.etag } : null;
    },
    async open(key, range) {
      const file = files.get(key);
      if (!file) return null;
      const info = { size: file.content.length, etag: file.etag };
      if (!range) return { ...info, stream: Readable.from([file.content]), range: null };
      const resolved = resolveByteRange(range, file.content.length);
      if (!resolved) return { ...info, unsatisfiable: true };
      return { ...info, stream: Readable.from([file.content.subarray(resolved.start, resolved.end + 1)]), range: resolved };
    },
    async delete(key) {
      deleted.push(key);
      files.delete(key);
    },
  };
};

/** Allows every URL except those whose host is listed, which it refuses as the real guard refuses a private address. */
export const urlGuard = (blockedHosts: readonly string[] = []): UrlGuard & { readonly checked: string[] } => {
  const checked: string[] = [];
  return {
    checked,
    async assertUrlAllowed(url) {
      checked.push(url);
      if (blockedHosts.includes(new URL(url).hostname)) throw validationError(`${url} resolves to a private address`, [`url: ${url} is not allowed`]);
    },
  };
};

export interface RecordingMetrics extends Metrics {
  readonly renders: { readonly kind: RenderKind; readonly format: string; readonly outcome: RenderMetricOutcome }[];
  readonly webhookAttempts: WebhookAttemptOutcome[];
  readonly rendersAhead: RenderAheadOutcome[];
}

export const recordingMetrics = (): RecordingMetrics => {
  const renders: RecordingMetrics['renders'] = [];
  const webhookAttempts: WebhookAttemptOutcome[] = [];
  const rendersAhead: RenderAheadOutcome[] = [];
  return {
    renders,
    webhookAttempts,
    rendersAhead,
    startRender: (labels) => (outcome) => void renders.push({ ...labels, outcome }),
    webhookAttempt: (outcome) => void webhookAttempts.push(outcome),
    renderAheadEnded: (outcome) => void rendersAhead.push(outcome),
  };
};

/** Answers each webhook with the next of `responses` (the last one again when they run out), and keeps what was sent. */
export const fakeWebhookSender = (...responses: WebhookResponse[]): WebhookSender & { readonly sent: WebhookRequest[] } => {
  const sent: WebhookRequest[] = [];
  return {
    sent,
    async send(request) {
      sent.push(request);
      return responses[Math.min(sent.length, responses.length) - 1] ?? { ok: true, statusCode: 200 };
    },
  };
};
