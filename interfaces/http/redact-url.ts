/** Query parameters whose values are credentials: GET /img's API key, signed links' signature. */
const SECRET_QUERY_PARAMETERS = ['apikey', 'api_key', 'signature', 'token', 'secret'];
const CENSORED = '[redacted]';

/** The URL (path and query) with every credential's value censored; an unparsable query is dropped whole. */
export const redactUrl = (url: string): string => {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const path = url.slice(0, queryAt);
  try {
    const query = new URLSearchParams(url.slice(queryAt + 1));
    const redacted = [...query].map(([name, value]): [string, string] => [name, SECRET_QUERY_PARAMETERS.includes(name.toLowerCase()) ? CENSORED : value]);
    return `${path}?${new URLSearchParams(redacted).toString()}`;
  } catch {
    return `${path}?${CENSORED}`;
  }
};

interface LoggedRequest {
  readonly url?: unknown;
}

/** A request as its log line shows it: the logged URL loses its credentials. */
export const redactRequest = <Request extends LoggedRequest>(req: Request): Request =>
  typeof req.url === 'string' ? { ...req, url: redactUrl(req.url) } : req;
