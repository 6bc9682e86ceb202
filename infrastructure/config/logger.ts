import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACTED_PATHS, REDACTION_CENSOR } from './log-redaction.js';

/** The service's root logger; `destination` is stdout unless given (tests read what it wrote). */
export const createLogger = (level: string, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: 'render-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_PATHS], censor: REDACTION_CENSOR },
    },
    destination,
  );
