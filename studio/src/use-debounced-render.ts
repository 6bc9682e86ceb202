import { useEffect, useRef, useState } from 'react';
import { ApiError } from './api-client';

export interface RenderState {
  /** A blob: URL of the latest finished preview. */
  readonly url: string | null;
  readonly busy: boolean;
  readonly error: string | null;
}

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : (error as Error).message);

/**
 * Runs `render` once the inputs (`key`) have been still for `delayMs`, aborting a run that a newer
 * input superseded, so only the latest preview ever shows and no stale answer overwrites it. The
 * previous image stays on screen while the next one renders.
 */
export const useDebouncedRender = (key: string, render: (signal: AbortSignal) => Promise<Blob>, delayMs = 400): RenderState => {
  const [state, setState] = useState<RenderState>({ url: null, busy: false, error: null });
  const latest = useRef(render);
  latest.current = render;

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setState((previous) => ({ ...previous, busy: true }));
      latest.current(controller.signal).then(
        (blob) => {
          if (controller.signal.aborted) return;
          const url = URL.createObjectURL(blob);
          setState((previous) => {
            if (previous.url) URL.revokeObjectURL(previous.url);
            return { url, busy: false, error: null };
          });
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          setState((previous) => ({ ...previous, busy: false, error: describe(error) }));
        },
      );
    }, delayMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key, delayMs]);

  return state;
};
