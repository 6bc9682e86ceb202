import type { ApiKeyScope } from '../../domain/accounts/account-events.js';

/** Who is asking: every read and write is scoped to `orgId`. */
export interface Caller {
  readonly orgId: string;
  /** The API key id, or "system" for the service's own work (CLI, bootstrap). */
  readonly actor: string;
  readonly scopes: readonly ApiKeyScope[];
}

export interface RequestContext {
  readonly caller: Caller;
  /** Ties every event of one request (and the work it starts) together. */
  readonly correlationId: string;
}
