import type { AccountCommand } from '../../domain/accounts/account-commands.js';
import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream, type AccountEvent } from '../../domain/accounts/account-events.js';
import type { Account } from '../../domain/accounts/account.js';
import { createCommandBatcher, type CommandBatcher } from '../shared/command-batcher.js';
import type { CommandDeps } from '../shared/command-handler.js';

/** Every request of an organization charges and may refund on its one account stream: batched, not serialised. */
export type AccountCommands = CommandBatcher<Account, AccountCommand, AccountEvent>;

export const createAccountCommands = (deps: CommandDeps): AccountCommands => createCommandBatcher(deps, accountDecider, accountStream);
