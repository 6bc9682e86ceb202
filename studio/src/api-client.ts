import { forgetApiKey, storedApiKey } from './api-key';

/** An answer in the service's error shape ({ msg, status, errors }), kept whole so the page can show every problem. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: readonly string[],
  ) {
    super(message);
  }

  /** One line for a status area: the message and what the service said was wrong. */
  describe(): string {
    return this.errors.length > 0 ? `${this.message}: ${this.errors.join('; ')}` : this.message;
  }
}

const errorOf = async (response: Response): Promise<ApiError> => {
  const body = (await response.json().catch(() => null)) as { msg?: unknown; errors?: unknown } | null;
  const message = typeof body?.msg === 'string' ? body.msg : `${response.status} ${response.statusText}`;
  const errors = Array.isArray(body?.errors) ? body.errors.filter((item): item is string => typeof item === 'string') : [];
  return new ApiError(response.status, message, errors);
};

/** What the studio tells the page when the service refused its key: the page asks for one again, saying why. */
export const SIGNED_OUT_EVENT = 'studio:signed-out';

/**
 * Every call sends the key in `x-api-key`; a 401 or 403 (a key unknown, revoked, or without a scope
 * the studio needs) forgets it, so the page asks for a key again. A FormData body goes as
 * multipart/form-data (the browser writes the boundary), anything else as JSON.
 */
const send = async (method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> => {
  const headers: Record<string, string> = { 'x-api-key': storedApiKey() ?? '' };
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body), signal });
  if (response.ok) return response;
  const error = await errorOf(response);
  if (response.status === 401 || response.status === 403) {
    forgetApiKey();
    window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT, { detail: error.describe() }));
  }
  throw error;
};

export const api = {
  async json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await send(method, path, body, signal);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  },
  /** A rendered file itself (POST /api/v2/render?output=image) or an uploaded one, as a blob. */
  async blob(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Blob> {
    return (await send(method, path, body, signal)).blob();
  },
  /** A rendered file (POST /api/v2/render?output=image) with the id of the render that made it. */
  async rendered(path: string, body: unknown, signal?: AbortSignal): Promise<{ blob: Blob; requestId: string | null }> {
    const response = await send('POST', path, body, signal);
    return { blob: await response.blob(), requestId: response.headers.get('x-request-id') };
  },
};
