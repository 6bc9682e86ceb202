import type { ProjectionProgress } from '../ports/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onAccountStream } from '../shared/stream-commands.js';
import { systemContextFor } from '../shared/request-context.js';

export interface AccountCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

import type { AccountCommand } from '../../domain/accounts/account-commands.js';

/**
 * The administration's commands on an account stream, made by the system (not an API key), and
 * awaited until the read models caught up: a key issued is a key that authenticates at once.
 */
export const handleAccountCommand = async (deps: AccountCommandDeps, orgId: string, command: AccountCommand) => {
  const result = await onAccountStream(deps, orgId, command, systemContextFor(orgId, deps.ids.next()));
  if (result.position !== null) await deps.progress.waitFor(result.position);
  return result;
};
