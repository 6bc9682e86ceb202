import http from 'node:http';
import { dataFor, HIT_DATA } from './card.js';
import { runConcurrent, type RunLimits } from './measure.js';
import { serveThread, threadCpuSeconds } from './threads.js';

/** One measured run of POST /api/v2/render from this thread, so the client shares nothing with the service but the CPUs. */
export interface LoadRequest extends RunLimits {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly templateId: string;
  /**
   * miss: cache: false and data of its own per request (from firstIndex on); hit: one identical
   * request; bare: the hit's request to a bare node:http server at baseUrl (the bench's baseline).
   */
  readonly path: 'miss' | 'hit' | 'bare';
  readonly output: 'json' | 'image';
  readonly firstIndex: number;
  readonly timeoutMs: number;
}

export interface LoadSample {
  readonly requestId: string;
  /** Wall-clock ms (epoch) the request was sent and its answer fully read. */
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly cached: boolean;
  readonly bytes: number;
}

export interface LoadReply {
  readonly latencies: number[];
  readonly wallMs: number;
  readonly samples: LoadSample[];
  /** CPU seconds this thread spent sending and reading, to be taken out of the service's share. */
  readonly clientCpu: number;
}

const wallNow = () => performance.timeOrigin + performance.now();

/*
 * node:http on kept-alive sockets rather than fetch: the client shares the service's two cores, and
 * fetch (undici's WHATWG layer: streams, Headers, an AbortSignal per call) costs CPU per request on
 * the scale of a cache hit's own, which would be measured as if it were the service's headroom.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

const post = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) =>
  new Promise<Answer>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });

const renderOnce = async (request: LoadRequest, index: number): Promise<LoadSample> => {
  const body =
    request.path === 'miss'
      ? { template: request.templateId, outputFormat: 'jpeg', cache: false, data: dataFor(request.firstIndex + index) }
      : { template: request.templateId, outputFormat: 'jpeg', data: HIT_DATA };
  const sentAt = wallNow();
  const response = await post(
    request.path === 'bare' ? `${request.baseUrl}/bare` : `${request.baseUrl}/api/v2/render${request.output === 'image' ? '?output=image' : ''}`,
    { 'x-api-key': request.apiKey, 'content-type': 'application/json' },
    JSON.stringify(body),
    request.timeoutMs,
  );
  const content = response.body;
  const receivedAt = wallNow();
  if (response.status !== 200) throw new Error(`POST /api/v2/render (${request.path}, ${request.output}) answered ${response.status}: ${content.toString('utf8').slice(0, 500)}`);
  if (request.output === 'image') {
    const type = response.headers['content-type'] ?? '';
    if (!type.startsWith('image/jpeg')) throw new Error(`POST /api/v2/render?output=image answered ${type}, not a JPEG`);
    return { requestId: String(response.headers['x-request-id'] ?? ''), sentAt, receivedAt, cached: response.headers['x-cached'] === 'true', bytes: content.length };
  }
  const json = JSON.parse(content.toString('utf8')) as { requestId?: unknown; cached?: unknown };
  return { requestId: String(json.requestId), sentAt, receivedAt, cached: json.cached === true, bytes: content.length };
};

serveThread<LoadRequest, LoadReply>(async (request) => {
  const cpuBefore = threadCpuSeconds();
  const samples: LoadSample[] = [];
  const run = await runConcurrent(request, async (index) => {
    const sample = await renderOnce(request, index);
    samples.push(sample);
    return sample.receivedAt - sample.sentAt;
  });
  return { ...run, samples, clientCpu: threadCpuSeconds() - cpuBefore };
});
