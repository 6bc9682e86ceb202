import type { AccountView } from '../ports/read-models.js';

/** An organization's settings, as GET and PATCH /api/v2/account/settings show them. */
export interface SettingsDto {
  /** Whether GET /img takes the API key from its query string (`?apiKey=`, the spec's form). */
  readonly apiKeyInQuery: boolean;
}

export const toSettingsDto = (account: AccountView): SettingsDto => ({ apiKeyInQuery: account.apiKeyInQuery });
