import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import type { WebhookCommand } from '../../domain/renders/webhook-attempts.js';
import { systemContextFor } from '../shared/request-context.js';
import { handleCommand, type CommandDeps } from '../shared/command-handler.js';

/** Records one attempt to deliver a request's webhook (failed, delivered) or its abandonment, each once. */
export const recordWebhookAttempt = (deps: CommandDeps, request: { readonly orgId: string; readonly requestId: string }, command: WebhookCommand) =>
  handleCommand(deps, renderDecider, renderStream(request.requestId), command, systemContextFor(request.orgId, request.requestId));
