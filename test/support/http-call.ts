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
