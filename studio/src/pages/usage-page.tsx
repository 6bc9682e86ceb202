import { useEffect, useState } from 'react';
import { api, ApiError } from '../api-client';
import { StatusLine } from '../status-line';
import type { Usage } from '../types';

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Credits and plan as GET /api/v1/usage reports them for the key's organization. */
export const UsagePage = () => {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    api.json<Usage>('GET', '/api/v1/usage', undefined, controller.signal).then(setUsage, (failure: unknown) =>
      controller.signal.aborted || setError(failure instanceof ApiError ? failure.describe() : (failure as Error).message),
    );
    return () => controller.abort();
  }, []);

  return (
    <section aria-labelledby="usage-heading">
      <h1 id="usage-heading">Usage</h1>
      <StatusLine error={error}>{usage ? null : 'Loading...'}</StatusLine>
      {usage && (
        <dl className="usage">
          <dt>Credits used</dt>
          <dd data-testid="credits-used">
            {usage.credits.used} of {usage.credits.total}
          </dd>
          <dt>Next renewal</dt>
          <dd>
            {usage.credits.nextRenewalAt} (+{usage.credits.renewalAmount} credits)
          </dd>
          <dt>Plan</dt>
          <dd data-testid="plan">
            {usage.plan.name} ({usage.plan.status})
          </dd>
          <dt>Uploads</dt>
          <dd>
            {megabytes(usage.uploads.used)} of {megabytes(usage.uploads.total)}
          </dd>
        </dl>
      )}
    </section>
  );
};
