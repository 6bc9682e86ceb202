import type { Logger } from 'pino';

/** What a runtime opened, closed in reverse order; a step that fails is logged and the rest still close. */
export const createLifetime = (logger: Logger) => {
  const closers: (() => Promise<void>)[] = [];
  return {
    defer(closer: () => Promise<void>): void {
      closers.push(closer);
    },
    async close(): Promise<void> {
      for (const closer of closers.reverse()) {
        await closer().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
      }
    },
  };
};

export type Lifetime = ReturnType<typeof createLifetime>;
