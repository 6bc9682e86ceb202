import type { ReactNode } from 'react';

/** A polite live region: screen readers hear saves, renders and errors without losing their place. */
export const StatusLine = ({ error, children }: { error?: string | null; children?: ReactNode }) => (
  <p className={error ? 'status error' : 'status'} role={error ? 'alert' : 'status'} aria-live="polite">
    {error ?? children}
  </p>
);
