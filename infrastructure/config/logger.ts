import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACTED_PATHS, REDACTION_CENSOR } from './log-redaction.js';

/** With tracing on, a line logged inside a request, workflow or activity names its trace, to go from one to the other. */
const traceOfActiveSpan = (): Record<string, string> => {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
};

/** The service's root logger; `destination` is stdout unless given (tests read what it wrote). */
export const createLogger = (level: string, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: 'render-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_PATHS], censor: REDACTION_CENSOR },
      mixin: traceOfActiveSpan,
    },
    destination,
  );
