import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { htmlDocument } from '../../application/renders/html-document.js';
import { mustacheMerger } from '../../infrastructure/templates/mustache-merger.js';
import { CARD_CSS, CARD_HTML, dataFor, HEIGHT, WIDTH } from './card.js';
import { runConcurrent, type RunLimits } from './measure.js';
import { serveThread, threadCpuSeconds } from './threads.js';

/*
 * The captures' side of bench:render, in a thread of its own: the web page captured (the bench card,
 * /card/<i> with the data of render i, as a template render of it would see it) and the HTTP client
 * of POST /api/v1/screenshots and /api/v1/pdf. The page's server stands for the internet: its CPU is
 * this thread's, counted apart from the service's and the raw browser's alike.
 */

export type CaptureKind = 'screenshot' | 'pdf';
/** What a run asks of the service: a capture of the card's page, or a PNG or PDF render of the card's template (cache: false). */
export type CaptureCall = CaptureKind | 'png-render' | 'pdf-render';

export type CaptureLoadRequest =
  | { readonly kind: 'serve'; readonly host: string }
  | { readonly kind: 'cpu' }
  | (RunLimits & {
      readonly kind: 'run';
      readonly baseUrl: string;
      readonly apiKey: string;
      readonly pageBase: string;
      readonly capture: CaptureCall;
      /** The card's template, for png-render and pdf-render. */
      readonly templateId: string;
      readonly firstIndex: number;
      readonly timeoutMs: number;
    });

export interface CaptureSample {
  readonly requestId: string;
  readonly sentAt: number;
  readonly receivedAt: number;
}

export interface CaptureRunReply {
  readonly latencies: number[];
  readonly wallMs: number;
  readonly samples: CaptureSample[];
  /** CPU seconds of this thread over the run (client and page server), taken out of the service's share. */
  readonly clientCpu: number;
}

/** The card as a web page: the same document a template render of the card loads. */
const cardPage = (i: number) => htmlDocument(mustacheMerger.merge(CARD_HTML, dataFor(i)), CARD_CSS, { width: WIDTH, height: HEIGHT, scaleFactor: 1, waitTime: 0 }).html;

const wallNow = () => performance.timeOrigin + performance.now();
let server: Server | undefined;

const captureOnce = async (request: Extract<CaptureLoadRequest, { kind: 'run' }>, index: number): Promise<CaptureSample> => {
  const url = `${request.pageBase}/card/${request.firstIndex + index}`;
  const [path, body] =
    request.capture === 'screenshot'
      ? ['/api/v1/screenshots', { url, width: WIDTH, height: HEIGHT }]
      : request.capture === 'pdf'
        ? ['/api/v1/pdf', { url, format: 'A4' }]
        : ['/api/v2/render', { template: request.templateId, outputFormat: request.capture === 'pdf-render' ? 'pdf' : 'png', cache: false, data: dataFor(request.firstIndex + index) }];
  const sentAt = wallNow();
  const response = await fetch(`${request.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': request.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  const text = await response.text();
  const receivedAt = wallNow();
  if (response.status !== 200) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return { requestId: String((JSON.parse(text) as { requestId?: unknown }).requestId), sentAt, receivedAt };
};

serveThread<CaptureLoadRequest, unknown>(async (request) => {
  switch (request.kind) {
    case 'serve': {
      server = createServer((req, res) => {
        const match = /^\/card\/(\d+)$/.exec(req.url ?? '');
        if (!match) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(cardPage(Number(match[1])));
      });
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(0, request.host, () => resolve());
      });
      return `http://${request.host}:${(listening.address() as AddressInfo).port}`;
    }
    case 'cpu':
      return threadCpuSeconds();
    case 'run': {
      const cpuBefore = threadCpuSeconds();
      const samples: CaptureSample[] = [];
      const run = await runConcurrent(request, async (index) => {
        const sample = await captureOnce(request, index);
        samples.push(sample);
        return sample.receivedAt - sample.sentAt;
      });
      return { ...run, samples, clientCpu: threadCpuSeconds() - cpuBefore } satisfies CaptureRunReply;
    }
  }
});
