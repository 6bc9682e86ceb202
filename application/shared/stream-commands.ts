import { accountDecider } from '../../domain/accounts/account-decider.js';
import { accountStream } from '../../domain/accounts/account-events.js';
import { batchDecider } from '../../domain/batches/batch-decider.js';
import { batchStream } from '../../domain/batches/batch-events.js';
import { renderDecider } from '../../domain/renders/render-decider.js';
import { renderStream } from '../../domain/renders/render-events.js';
import { templateDecider } from '../../domain/templates/template-decider.js';
import { templateStream } from '../../domain/templates/template-events.js';
import { commandHandler } from './command-handler.js';

/** Commands on `render-<requestId>`: renders, videos and captures, their outcomes, deletion and webhooks. */
export const onRenderStream = commandHandler(renderDecider, renderStream);

/** Commands on `account-<orgId>`: plan, keys, credits, webhook secrets, uploaded fonts and images. */
export const onAccountStream = commandHandler(accountDecider, accountStream);

/** Commands on `template-<templateId>`. */
export const onTemplateStream = commandHandler(templateDecider, templateStream);

/** Commands on `batch-<batchId>`: a batch's request, its cancellation and its end (its rows are renders of their own). */
export const onBatchStream = commandHandler(batchDecider, batchStream);
