import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/shared/errors.js';
import { videoRenderWorkflow } from '../../workflows/video-render.workflow.js';
import { COMPLETED_AT, FAILED_AT, STORED_FILE, refusedWith, stubActivities, useWorkflowEnvironment } from '../support/workflow-env.js';

const environment = useWorkflowEnvironment();

const run = (requestId: string, webhook: boolean, stubs: ReturnType<typeof stubActivities>) =>
  environment.execute(videoRenderWorkflow, requestId, { requestId, webhook }, stubs.activities);

describe('videoRenderWorkflow', () => {
  it('charges, produces the video, records it, then tells the webhook: done', async () => {
    const stubs = stubActivities();
    await expect(run(randomUUID(), true, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'planVideo', 'produceVideo', 'recordCompletion', 'webhookRetryPolicy', 'deliverWebhook']);
  });

  it('produces nothing when the charge is refused: payment_required, nothing refunded', async () => {
    const refusal = new DomainError('payment_required', 'Not enough credits: 30 needed, 2 left');
    const stubs = stubActivities({ chargeCredits: refusedWith(refusal) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refusal.message, code: 'payment_required', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'recordFailure']);
  });

  it('refunds a video that cannot be made, without retrying a refusal; a refusal is still validation', async () => {
    const refused = new DomainError('validation', 'video renders need a canvas-html template');
    const stubs = stubActivities({ produceVideo: refusedWith(refused) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refused.message, code: 'validation', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'planVideo', 'produceVideo', 'refundCredits', 'recordFailure']);
  });

  it('renders a long video as segments, then joins them', async () => {
    const segments = [
      { start: 0, end: 300 },
      { start: 300, end: 600 },
      { start: 600, end: 900 },
    ];
    const stubs = stubActivities({ planVideo: async () => ({ framesTotal: 900, segments }) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    const produced = stubs.calls.filter((call) => call.name === 'produceVideoSegment').map((call) => call.input as { index: number; segment: unknown });
    expect(produced.map(({ index, segment }) => [index, segment]).sort()).toEqual(segments.map((segment, index) => [index, segment]));
    expect(stubs.names().filter((name) => name !== 'produceVideoSegment')).toEqual(['chargeCredits', 'planVideo', 'joinVideoSegments', 'recordCompletion']);
  });

  it('a segment that cannot be made fails the video: the segments are discarded and the charge refunded', async () => {
    const refused = new DomainError('validation', "The template's animation failed at 12000.0 ms");
    const failing = stubActivities({
      planVideo: async () => ({ framesTotal: 600, segments: [{ start: 0, end: 300 }, { start: 300, end: 600 }] }),
      produceVideoSegment: async ({ index }) => (index === 1 ? refusedWith(refused)() : undefined),
    });

    await expect(run(randomUUID(), false, failing)).resolves.toEqual({ status: 'failed', reason: refused.message, code: 'validation', position: FAILED_AT });
    const names = failing.names();
    expect(names).not.toContain('joinVideoSegments');
    expect(names).not.toContain('recordCompletion');
    expect(names.slice(-3)).toEqual(['discardVideoSegments', 'refundCredits', 'recordFailure']);
    expect(failing.calls.find((call) => call.name === 'discardVideoSegments')?.input).toMatchObject({ segments: 2 });
  });
});
