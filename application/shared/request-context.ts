import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/accounts/account-events.js';

/** Who is asking: every read and write is scoped to `orgId`. */
export interface Caller {
  readonly orgId: string;
  /** The API key id, or "system" for the service's own work (CLI, bootstrap). */
  readonly actor: string;
  readonly scopes: readonly ApiKeyScope[];
  /** Calling with a test key: what it renders or captures is free, watermarked and short-lived. */
  readonly test?: boolean;
}

export interface RequestContext {
  readonly caller: Caller;
  /** Ties every event of one request (and the work it starts) together. */
  readonly correlationId: string;
}

/**
 * What the service does on its own behalf (a workflow's step for a request, the administration's
 * commands) is recorded as the system's, correlated with what it was done for.
 */
export const systemContextFor = (orgId: string, correlationId: string): RequestContext => ({
  caller: { orgId, actor: 'system', scopes: API_KEY_SCOPES },
  correlationId,
});
