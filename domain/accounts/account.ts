import { assertNever } from '../shared/decider.js';
import type { AccountEvent, ApiKeyScope, Plan } from './account-events.js';

export interface ApiKeyState {
  readonly keyId: string;
  readonly hash: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly revoked: boolean;
}

export type Account =
  | { readonly status: 'absent' }
  | {
      readonly status: 'open';
      readonly orgId: string;
      readonly name: string;
      readonly plan: Plan;
      readonly apiKeys: ReadonlyMap<string, ApiKeyState>;
    };

export const initialAccount = (): Account => ({ status: 'absent' });

export const evolveAccount = (state: Account, event: AccountEvent): Account => {
  switch (event.type) {
    case 'AccountOpened':
      return { status: 'open', orgId: event.data.orgId, name: event.data.name, plan: event.data.plan, apiKeys: new Map() };
    case 'ApiKeyIssued': {
      if (state.status !== 'open') return state;
      const { keyId, hash, scopes } = event.data;
      return { ...state, apiKeys: new Map(state.apiKeys).set(keyId, { keyId, hash, scopes, revoked: false }) };
    }
    case 'ApiKeyRevoked': {
      if (state.status !== 'open') return state;
      const key = state.apiKeys.get(event.data.keyId);
      if (!key) return state;
      return { ...state, apiKeys: new Map(state.apiKeys).set(key.keyId, { ...key, revoked: true }) };
    }
    default:
      return assertNever(event);
  }
};
