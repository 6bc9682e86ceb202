import http from 'node:http';
import { encodeUrlComponent, JsonToken, KnownId, RawText, type IdPoolName, type RequestPlan, type UrlValue } from './openapi-arbitraries.js';

/*
 * Sends generated requests to a running service and judges each answer: never a 5xx, every 4xx
 * in the spec's error shape (`msg`, `status` equal to the HTTP status, `errors` as strings), and a
 * refused request appends nothing to the event log. Keeps a pool of templates and results that
 * generated requests name, so most of them reach past "not found".
 */

export interface ProbeOptions {
  readonly url: string;
  /** A key of the organization that owns the pool, and one of an organization that owns nothing. */
  readonly keys: { readonly valid: string; readonly otherOrganization: string };
  /** Position of the last event in the log: a refused request must leave it where it was. */
  readonly headPosition?: () => Promise<number | null>;
}

export interface ProbeAnswer {
  readonly status: number;
  /** What is wrong with the answer; null when it is acceptable. */
  readonly problem: string | null;
  /** `503 rendering off` for the answer of a service started without rendering; the status otherwise. */
  readonly label: string;
}

/**
 * A service started without rendering (tests, the fuzz run) answers a render it accepted this way:
 * the request was valid, only the process cannot render. Any other 5xx is a failure.
 */
export const RENDERING_OFF_MESSAGE = 'Rendering is not enabled in this process';

interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

const send = (base: URL, method: string, path: string, headers: Record<string, string>, body: Buffer | null): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    // node:http rather than fetch: fetch normalizes paths (`%2e%2e` becomes `..` and is removed) and refuses GET bodies.
    const request = http.request(
      { host: base.hostname, port: base.port, method, path, agent, timeout: 60_000, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within 60 s: ${method} ${path.slice(0, 200)}`)));
    request.on('error', reject);
    request.end(body ?? undefined);
  });

/** Why `answer` is not in the spec's error shape for its status; null when it is. */
export const errorShapeProblem = (answer: RawAnswer): string | null => {
  if (!answer.contentType.startsWith('application/json')) return `content-type is "${answer.contentType}", not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'the body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not an object';
  const { msg, status, errors, ...rest } = body as Record<string, unknown>;
  if (typeof msg !== 'string' || msg === '') return '`msg` is not a non-empty string';
  if (status !== answer.status) return `\`status\` is ${JSON.stringify(status)}, the HTTP status ${answer.status}`;
  if (!Array.isArray(errors) || !errors.every((error) => typeof error === 'string')) return '`errors` is not an array of strings';
  if (Object.keys(rest).length > 0) return `fields beyond the spec's: ${Object.keys(rest).join(', ')}`;
  return null;
};

/** The refusal names the reason in `msg`, or in `errors` when `msg` says what became of the request. */
const saysRenderingOff = ({ msg, errors }: { msg: string; errors: string[] }) => [msg, ...errors].some((text) => text.includes(RENDERING_OFF_MESSAGE));

const judge = (answer: RawAnswer): { problem: string | null; label: string } => {
  if (answer.status >= 500) {
    const renderingOff = answer.status === 503 && errorShapeProblem(answer) === null && saysRenderingOff(JSON.parse(answer.text) as { msg: string; errors: string[] });
    if (renderingOff) return { problem: null, label: '503 rendering off' };
    return { problem: `answered ${answer.status}: ${answer.text.slice(0, 500)}`, label: String(answer.status) };
  }
  if (answer.status >= 400) {
    const shape = errorShapeProblem(answer);
    return { problem: shape && `answered ${answer.status} not in the error shape (${shape}): ${answer.text.slice(0, 500)}`, label: String(answer.status) };
  }
  return { problem: null, label: String(answer.status) };
};

type TemplateKind = 'html' | 'canvas' | 'canvas-html';

/** Components render data can name (`title.text`, `qr.value`, `code.value`), with properties of several kinds. */
const COMPONENTS = {
  background: '#fafafa',
  components: [
    { type: 'TEXT', id: 'title', x: 10, y: 10, width: 300, height: 60, text: 'Hello', fontSize: 24 },
    { type: 'QR_CODE', id: 'qr', x: 10, y: 80, width: 120, height: 120, value: 'https://example.com' },
    { type: 'RECTANGLE', id: 'box', x: 200, y: 80, width: 50, height: 50 },
    { type: 'BARCODE', id: 'code', x: 140, y: 140, width: 170, height: 60, format: 'ean13', value: '5901234123457' },
  ],
};

/** Sends plans to the service at `options.url`, keeping the ids they name alive. */
export const createApiProbe = async (options: ProbeOptions) => {
  const base = new URL(options.url);
  const pools: Record<IdPoolName, string[]> = { templates: [], results: [], files: [] };
  const templateKinds = new Map<string, TemplateKind>();

  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await send(base, method, path, { 'x-api-key': options.keys.valid, 'content-type': 'application/json' }, body === undefined ? null : Buffer.from(JSON.stringify(body)));
    if (answer.status >= 300) throw new Error(`setup ${method} ${path} answered ${answer.status}: ${answer.text}`);
    return JSON.parse(answer.text || 'null');
  };

  const createTemplate = async (kind: TemplateKind): Promise<string> => {
    const editor = kind === 'html' ? 'html-editor' : kind === 'canvas' ? 'canvas-editor' : 'canvas-html';
    const template = await call('POST', '/api/v2/my-templates', { name: `probe ${kind}`, width: 320, height: 240, editor, tags: ['probe'] });
    const id = template.identifier as string;
    if (kind === 'html') await call('PUT', `/api/v2/my-templates/${id}/html-editor`, { html: '<h1>{{title}}</h1><p>{{body}}</p>', css: 'h1{color:red}', sampleData: { title: 'a' } });
    else await call('PUT', `/api/v2/my-templates/${id}/components`, COMPONENTS);
    templateKinds.set(id, kind);
    return id;
  };

  for (const kind of ['html', 'canvas', 'canvas-html', 'html', 'canvas'] as const) pools.templates.push(await createTemplate(kind));
  // Results to read and delete: a service that does not render still records the renders it was asked for.
  for (const [template, outputFormat] of [[pools.templates[0], 'png'], [pools.templates[1], 'jpeg'], [pools.templates[2], 'mp4']] as const) {
    await send(base, 'POST', '/api/v2/render', { 'x-api-key': options.keys.valid, 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ template, outputFormat })));
  }
  for (const item of (await call('GET', '/api/v2/results?size=50')).content as { identifier: string; href: string }[]) {
    pools.results.push(item.identifier);
    pools.files.push(decodeURIComponent(item.href.split('?')[0]!.split('/').at(-1)!));
  }

  const resolve = (value: UrlValue): string => {
    if (value instanceof RawText) return value.text;
    if (value instanceof KnownId) {
      const pool = pools[value.pool];
      return encodeUrlComponent(pool.length > 0 ? pool[value.pick % pool.length]! : `no-known-${value.pool}`);
    }
    return encodeUrlComponent(value);
  };

  /** The body with its known ids replaced by the ids they stand for. */
  const resolveJson = (value: unknown): unknown => {
    if (value instanceof KnownId) return decodeURIComponent(resolve(value));
    if (value instanceof JsonToken) return value;
    if (Array.isArray(value)) return value.map(resolveJson);
    if (typeof value === 'object' && value !== null) {
      const copy: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) Object.defineProperty(copy, key, { value: resolveJson(child), enumerable: true, configurable: true, writable: true });
      return copy;
    }
    return value;
  };

  /** JSON text of `value`, its JSON tokens written as they are. */
  const serialize = (value: unknown): string => {
    const tokens: string[] = [];
    const text = JSON.stringify(value, (_key, child: unknown) => (child instanceof JsonToken ? `\u{f8ff}${tokens.push(child.text) - 1}\u{f8ff}` : child)) ?? 'null';
    return text.replace(/"\u{f8ff}(\d+)\u{f8ff}"/gu, (_whole, index: string) => tokens[Number(index)]!);
  };

  const keyFor = (auth: RequestPlan['auth']): string | null =>
    ({
      valid: options.keys.valid,
      none: null,
      wrong: `rk_live_${'0'.repeat(32)}`,
      'other-organization': options.keys.otherOrganization,
      garbage: ' \t\u00ff'.repeat(10) + 'k'.repeat(20_000),
    })[auth];

  /** The request as sent: method, path with query, headers and body. */
  const materialize = (plan: RequestPlan, pathTemplate: string, keyInQuery: boolean) => {
    const path = pathTemplate.replace(/\{(\w+)\}/g, (_whole, name: string) => resolve(plan.pathParams[name] ?? ''));
    const key = keyFor(plan.auth);
    const query = plan.query.map(([name, value]) => `${encodeUrlComponent(name)}=${resolve(value)}`);
    if (keyInQuery && key !== null) query.push(`apiKey=${encodeUrlComponent(key)}`);
    const headers: Record<string, string> = {};
    if (!keyInQuery && key !== null) headers['x-api-key'] = key;
    let body: Buffer | null = null;
    if (plan.body) {
      headers['content-type'] = 'application/json';
      body = Buffer.from('raw' in plan.body ? plan.body.raw : serialize(resolveJson(plan.body.json)));
    }
    Object.assign(headers, plan.headers);
    return { path: query.length > 0 ? `${path}?${query.join('&')}` : path, headers, body };
  };

  /** Keeps the pool's ids alive: a deleted template is replaced, a deleted result leaves; new results join. */
  const remember = async (plan: RequestPlan, status: number, text: string) => {
    if (status >= 300) return;
    const known = Object.values(plan.pathParams).find((value): value is KnownId => value instanceof KnownId);
    if (plan.method === 'DELETE' && known) {
      const pool = pools[known.pool];
      if (pool.length === 0) return;
      const index = known.pick % pool.length;
      const id = pool[index]!;
      if (known.pool === 'templates') pool[index] = await createTemplate(templateKinds.get(id) ?? 'html');
      else pool.splice(index, 1);
      return;
    }
    const answer = text.startsWith('{') ? (JSON.parse(text) as { requestId?: unknown; href?: unknown }) : {};
    if (typeof answer.requestId === 'string' && pools.results.length < 50) pools.results.push(answer.requestId);
    if (typeof answer.href === 'string' && pools.files.length < 50) pools.files.push(decodeURIComponent(answer.href.split('?')[0]!.split('/').at(-1)!));
  };

  return {
    pools,
    /** Sends `plan` for the operation at `pathTemplate` and judges the answer. */
    async send(plan: RequestPlan, pathTemplate: string, keyInQuery: boolean): Promise<ProbeAnswer & { request: string }> {
      const { path, headers, body } = materialize(plan, pathTemplate, keyInQuery);
      const request = `${plan.method} ${path.length > 300 ? `${path.slice(0, 300)}…(${path.length})` : path}${body ? ` body ${body.length} bytes: ${body.subarray(0, 300).toString()}` : ''}`;
      const before = options.headPosition ? await options.headPosition() : null;
      const answer = await send(base, plan.method, path, headers, body);
      const { problem, label } = judge(answer);
      let unchanged: string | null = null;
      if (options.headPosition && answer.status >= 400 && answer.status < 500) {
        const after = await options.headPosition();
        if (after !== before) unchanged = `answered ${answer.status} yet the event log moved from ${before} to ${after}`;
      }
      await remember(plan, answer.status, answer.text);
      return { status: answer.status, label, problem: problem ?? unchanged, request };
    },
    close() {
      agent.destroy();
    },
  };
};
