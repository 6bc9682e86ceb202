import os from 'node:os';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * Whether a process exports spans: an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; empty counts as unset). It decides startTracing's `enabled` and
 * which kind of workflow bundle a worker runs.
 */
export const exportsSpans = (settings: { readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string; readonly OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string }): boolean =>
  Boolean(settings.OTEL_EXPORTER_OTLP_ENDPOINT || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

export interface TracingOptions {
  /** Tracing is on when an OTLP endpoint is configured: exportsSpans. */
  readonly enabled: boolean;
  readonly serviceName: string;
  /** What this process does (`all`, `api`, `worker`, `cli`), so a trace shows which host did what. */
  readonly role: string;
}

export interface Tracing {
  /**
   * Where Temporal's workflow spans go: they are made inside the workflow sandbox and handed out
   * through a sink, so they need the processor itself rather than the global provider.
   */
  readonly workflowSpans: { readonly processor: SpanProcessor; readonly resource: Resource };
  /** Sends the spans still batched; a process that stops without it loses its last second of traces. */
  shutdown(): Promise<void>;
}

let installed: Tracing | null = null;

/**
 * One tracer provider per process, registered globally with W3C trace-context propagation: the HTTP
 * middleware, Temporal's client and activity interceptors and the logger all find it through
 * @opentelemetry/api. The exporter reads the standard OTEL_EXPORTER_OTLP_* variables (OTLP over
 * HTTP, JSON) and OTEL_BSP_* for batching. Off, every span is a no-op and nothing is registered.
 */
export const startTracing = (options: TracingOptions): Tracing => {
  if (installed) return installed;
  const resource = Resource.default().merge(
    new Resource({
      [ATTR_SERVICE_NAME]: options.serviceName,
      'service.instance.id': `${os.hostname()}:${process.pid}`,
      'render_service.role': options.role,
    }),
  );
  if (!options.enabled) return { workflowSpans: { processor: new NoopSpanProcessor(), resource }, shutdown: async () => {} };

  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  installed = {
    workflowSpans: { processor, resource },
    async shutdown() {
      installed = null;
      await provider.shutdown();
      // Unregistered, so a runtime started later in this process (tests do) can register its own.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  return installed;
};
