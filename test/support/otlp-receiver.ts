import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON exporter sent it, with the attributes of the process that sent it. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: the exporter posts to `<url>/v1/traces`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface JsonAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

const attributesOf = (list: JsonAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? (value.boolValue ?? value.doubleValue) : Number(value.intValue))]));

/** A collector's OTLP/HTTP endpoint in miniature: it keeps every span it is sent, for a test to read. */
export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        return void res.writeHead(415).end();
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { resource?: { attributes?: JsonAttribute[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: JsonAttribute[] })[] }[] }[];
      };
      for (const { resource, scopeSpans } of body.resourceSpans ?? []) {
        for (const { spans: received } of scopeSpans ?? []) {
          for (const span of received ?? []) {
            spans.push({ ...span, parentSpanId: span.parentSpanId ?? '', attributes: attributesOf(span.attributes), resource: attributesOf(resource?.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
