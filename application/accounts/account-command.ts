import type { ProjectionProgress } from '../ports/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { onAccountStream } from '../shared/stream-commands.js';
import { systemContextFor } from '../shared/request-context.js';
import type { AccountCommand } from '../../domain/accounts/account-commands.js';
import { readYourWrite } from '../shared/read-your-writes.js';

export interface AccountCommandDeps extends CommandDeps {
  readonly progress: ProjectionProgress;
}

/**
 * The administration's commands on an account stream, made by the system (not an API key), and
 * awaited until the read models caught up: a key issued is a key that authenticates at once.
 */
export const handleAccountCommand = (deps: AccountCommandDeps, orgId: string, command: AccountCommand) =>
  readYourWrite(deps.progress, onAccountStream(deps, orgId, command, systemContextFor(orgId, deps.ids.next())));
