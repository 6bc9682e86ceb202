import { dataFor, HIT_DATA } from './card.js';
import { runConcurrent, type RunLimits } from './measure.js';
import { serveThread, threadCpuSeconds } from './threads.js';

/** One measured run of POST /api/v2/render from this thread, so the client shares nothing with the service but the CPUs. */
export interface LoadRequest extends RunLimits {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly templateId: string;
  /** miss: cache: false and data of its own per request (from firstIndex on); hit: one identical request. */
  readonly path: 'miss' | 'hit';
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

const renderOnce = async (request: LoadRequest, index: number): Promise<LoadSample> => {
  const body =
    request.path === 'miss'
      ? { template: request.templateId, outputFormat: 'jpeg', cache: false, data: dataFor(request.firstIndex + index) }
      : { template: request.templateId, outputFormat: 'jpeg', data: HIT_DATA };
  const sentAt = wallNow();
  const response = await fetch(`${request.baseUrl}/api/v2/render${request.output === 'image' ? '?output=image' : ''}`, {
    method: 'POST',
    headers: { 'x-api-key': request.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  const content = Buffer.from(await response.arrayBuffer());
  const receivedAt = wallNow();
  if (response.status !== 200) throw new Error(`POST /api/v2/render (${request.path}, ${request.output}) answered ${response.status}: ${content.toString('utf8').slice(0, 500)}`);
  if (request.output === 'image') {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('image/jpeg')) throw new Error(`POST /api/v2/render?output=image answered ${type}, not a JPEG`);
    return { requestId: response.headers.get('x-request-id') ?? '', sentAt, receivedAt, cached: response.headers.get('x-cached') === 'true', bytes: content.length };
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
