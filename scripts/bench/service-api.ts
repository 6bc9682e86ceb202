/** The service's JSON API with one key, as the bench's clients call it. */
export interface ServiceApi {
  readonly baseUrl: string;
  /** Any answer: its status and text, for clients that count failures instead of stopping at them. */
  send(method: string, pathname: string, body?: unknown): Promise<{ status: number; text: string }>;
  /** The JSON of an answer that must be a success (a status under 300); anything else throws. */
  call<T = Record<string, unknown>>(method: string, pathname: string, body?: unknown): Promise<T>;
}

/** `timeoutMs` bounds each call, where a bench must not wait on a stuck service for ever. */
export const serviceApi = (baseUrl: string, apiKey: string, { timeoutMs }: { timeoutMs?: number } = {}): ServiceApi => {
  const send: ServiceApi['send'] = async (method, pathname, body) => {
    const response = await fetch(`${baseUrl}${pathname}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
    return { status: response.status, text: await response.text() };
  };
  return {
    baseUrl,
    send,
    async call<T>(method: string, pathname: string, body?: unknown) {
      const { status, text } = await send(method, pathname, body);
      if (status >= 300) throw new Error(`${method} ${pathname} answered ${status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    },
  };
};
