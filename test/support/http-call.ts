/** One JSON request to a service under test with an API key; the body is parsed when there is one. */
export const callApi = async (baseUrl: string, key: string, method: string, pathname: string, body?: unknown) => {
  const response = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
};

export interface ApiCallOptions {
  readonly body?: unknown;
  /** Another key than the caller's own; null sends none. */
  readonly key?: string | null;
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

export type ApiCall = (method: string, pathname: string, options?: ApiCallOptions) => Promise<{ status: number; body: any; headers: Headers }>;

/** Requests to a service under test, with `apiKey` unless told otherwise; JSON bodies parsed, anything else as text. */
export const apiCaller =
  (baseUrl: string, apiKey: string): ApiCall =>
  async (method, pathname, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? apiKey : options.key;
    if (key !== null) headers['x-api-key'] = key;
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${baseUrl}${pathname}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: the test sees the raw text.
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
