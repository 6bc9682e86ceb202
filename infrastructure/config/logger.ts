import { pino, type Logger } from 'pino';

export const createLogger = (level: string): Logger =>
  pino({ level, base: { service: 'render-service' }, timestamp: pino.stdTimeFunctions.isoTime });
