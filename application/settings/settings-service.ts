import { DomainError } from '../../domain/shared/errors.js';
import type { RequestContext } from '../shared/request-context.js';
import { changeSettings, type ChangeSettingsDeps, type SettingsChange } from './change-settings/change-settings.js';
import { getSettings, settingsOf } from './get-settings/get-settings.js';

export type SettingsService = ReturnType<typeof createSettingsService>;

/** The organization's settings use cases bound to their dependencies, as the edges call them. */
export const createSettingsService = (deps: ChangeSettingsDeps) => ({
  get: (context: RequestContext) => getSettings(deps, context),
  change: (context: RequestContext, change: SettingsChange) => changeSettings(deps, context, change),

  /** GET /img with the key in its query string: refused once the organization turned that form off. */
  async assertApiKeyInQueryAllowed(context: RequestContext): Promise<void> {
    if ((await settingsOf(deps, context.caller.orgId)).apiKeyInQuery) return;
    throw new DomainError('forbidden', 'This organization does not accept API keys in URLs', [
      'apiKey: API keys in query strings are turned off for this organization; use a signed URL (keyId, expires, signature) or the x-api-key header',
    ]);
  },
});
