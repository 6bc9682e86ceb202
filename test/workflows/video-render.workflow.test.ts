import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { videoRenderWorkflow } from '../../workflows/video-render.workflow.js';
import { COMPLETED_AT, FAILED_AT, refusedWith, stubActivities, useWorkflowEnvironment } from '../support/workflow-env.js';

const environment = useWorkflowEnvironment();

const run = (requestId: string, webhook: boolean, stubs: ReturnType<typeof stubActivities>) =>
  environment.execute(videoRenderWorkflow, requestId, { requestId, webhook }, stubs.activities);

describe('videoRenderWorkflow', () => {
  it('charges, produces the video, records it, then tells the webhook: done', async () => {
    const stubs = stubActivities();
    await expect(run(randomUUID(), true, stubs)).resolves.toEqual({ status: 'done', position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceVideo', 'recordCompletion', 'webhookRetryPolicy', 'deliverWebhook']);
  });

  it('produces nothing when the charge is refused: payment_required, nothing refunded', async () => {
    const refusal = new DomainError('payment_required', 'Not enough credits: 30 needed, 2 left');
    const stubs = stubActivities({ chargeCredits: refusedWith(refusal) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refusal.message, code: 'payment_required', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'recordFailure']);
  });

  it('refunds a video that cannot be made, without retrying a refusal; every production failure is render_failed', async () => {
    const refused = new DomainError('validation', 'video renders need a canvas-html template');
    const stubs = stubActivities({ produceVideo: refusedWith(refused) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refused.message, code: 'render_failed', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceVideo', 'refundCredits', 'recordFailure']);
  });
});
