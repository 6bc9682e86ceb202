import type { ProjectionProgress } from '../../ports/read-models.js';
import type { CommandDeps } from '../../shared/command-handler.js';
import type { RequestContext } from '../../shared/request-context.js';
import { requireScope } from '../../shared/scopes.js';
import { onAccountStream } from '../../shared/stream-commands.js';
import { getSettings, type GetSettingsDeps } from '../get-settings/get-settings.js';
import type { SettingsDto } from '../settings-dto.js';
import { readYourWrite } from '../../shared/read-your-writes.js';

export interface ChangeSettingsDeps extends CommandDeps, GetSettingsDeps {
  readonly progress: ProjectionProgress;
}

/** Only the settings given change. */
export interface SettingsChange {
  readonly apiKeyInQuery?: boolean;
}

/**
 * Records the change and waits for the read models, so the next GET /img with `?apiKey=` already
 * meets the new setting; answers the settings as they are then.
 */
export const changeSettings = async (deps: ChangeSettingsDeps, context: RequestContext, change: SettingsChange): Promise<SettingsDto> => {
  requireScope(context, 'admin');
  if (change.apiKeyInQuery !== undefined) {
    const { orgId } = context.caller;
    await readYourWrite(
      deps.progress,
      onAccountStream(deps, orgId, { type: 'ChangeAccountSettings', data: { orgId, apiKeyInQuery: change.apiKeyInQuery, now: deps.clock.now().toISOString() } }, context),
    );
  }
  return getSettings(deps, context);
};
