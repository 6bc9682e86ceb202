import { deliverOutcome } from './deliver-outcome.js';

export interface WebhookWorkflowInput {
  readonly requestId: string;
}

/**
 * workflowId = requestId. Delivers the outcome of a request that was finished when it was accepted
 * (a render answered from the cache), with the same retries and events as any other delivery.
 */
export async function webhookWorkflow({ requestId }: WebhookWorkflowInput): Promise<void> {
  await deliverOutcome(requestId);
}
