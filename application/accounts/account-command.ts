import { accountStream } from '../../domain/accounts/account-events.js';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import type { ProjectionProgress } from '../ports/read-models.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';
import { systemContextFor } from '../shared/request-context.js';

export interface AccountCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

export type AccountCommand = Parameters<typeof accountDecider.decide>[0];

/**
 * The administration's commands on an account stream, made by the system (not an API key), and
 * awaited until the read models caught up: a key issued is a key that authenticates at once.
 */
export const handleAccountCommand = async (deps: AccountCommandDeps, orgId: string, command: AccountCommand) => {
  const result = await handleCommand(deps, accountDecider, accountStream(orgId), command, systemContextFor(orgId, deps.ids.next()));
  if (result.position !== null) await deps.progress.waitFor(result.position);
  return result;
};
