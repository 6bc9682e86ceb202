import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError, validationError } from '../../domain/shared/errors.js';
import { captureWorkflow, syncCaptureWorkflow } from '../../workflows/capture.workflow.js';
import { COMPLETED_AT, FAILED_AT, STORED_FILE, refusedWith, stubActivities, useWorkflowEnvironment } from '../support/workflow-env.js';

const environment = useWorkflowEnvironment();

const run = (requestId: string, webhook: boolean, stubs: ReturnType<typeof stubActivities>) =>
  environment.execute(captureWorkflow, requestId, { requestId, webhook }, stubs.activities);

describe('captureWorkflow', () => {
  it('charges, captures, records the file, then tells the webhook: done', async () => {
    const requestId = randomUUID();
    const stubs = stubActivities();

    await expect(run(requestId, true, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });

    expect(stubs.names()).toEqual(['chargeCredits', 'produceCapture', 'recordCompletion', 'webhookRetryPolicy', 'deliverWebhook']);
    expect(stubs.calls[1]?.input).toEqual({ requestId });
    expect(stubs.calls[2]?.input).toEqual({ requestId, file: STORED_FILE });
  });

  it('captures nothing when the charge is refused: payment_required, nothing refunded', async () => {
    const refusal = new DomainError('payment_required', 'Not enough credits: 1 needed, 0 left');
    const stubs = stubActivities({ chargeCredits: refusedWith(refusal) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refusal.message, code: 'payment_required', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'recordFailure']);
  });

  it('refunds a page that leads to a private address, without retrying: the request is at fault (validation)', async () => {
    const refused = validationError('The page at https://pages.example/ was refused: it leads to 10.0.0.1, a private, loopback or link-local address');
    const stubs = stubActivities({ produceCapture: refusedWith(refused) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: refused.message, code: 'validation', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCapture', 'refundCredits', 'recordFailure']);
  });

  it('does not retry a page that ran out of time (failed), unlike a render: refunded, failed', async () => {
    const timedOut = new DomainError('failed', 'The page did not settle within 30000 ms');
    const stubs = stubActivities({ produceCapture: refusedWith(timedOut) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: timedOut.message, code: 'failed', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCapture', 'refundCredits', 'recordFailure']);
  });

  it('captures again after a lost browser and charges once: done, nothing refunded', async () => {
    let attempts = 0;
    const stubs = stubActivities({
      produceCapture: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('Protocol error: Target closed');
        return STORED_FILE;
      },
    });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCapture', 'produceCapture', 'recordCompletion']);
  });
});

describe('syncCaptureWorkflow', () => {
  const runNow = (requestId: string, stubs: ReturnType<typeof stubActivities>) =>
    environment.execute(syncCaptureWorkflow, requestId, { requestId, webhook: false }, stubs.activities);

  it('charges, captures and records the file, every step a local activity: done', async () => {
    const stubs = stubActivities();
    await expect(runNow(randomUUID(), stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCaptureNow', 'recordCompletion']);
  });

  it('refunds a page the request is at fault for, without retrying it', async () => {
    const refused = validationError('https://pages.example/ did not answer within 15000 ms');
    const stubs = stubActivities({ produceCaptureNow: refusedWith(refused) });
    await expect(runNow(randomUUID(), stubs)).resolves.toEqual({ status: 'failed', reason: refused.message, code: 'validation', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCaptureNow', 'refundCredits', 'recordFailure']);
  });

  it('does not retry a page that ran out of time (failed): refunded, failed', async () => {
    const timedOut = new DomainError('failed', 'The page did not settle within 30000 ms');
    const stubs = stubActivities({ produceCaptureNow: refusedWith(timedOut) });
    await expect(runNow(randomUUID(), stubs)).resolves.toEqual({ status: 'failed', reason: timedOut.message, code: 'failed', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCaptureNow', 'refundCredits', 'recordFailure']);
  });

  it('captures again after a lost browser and charges once', async () => {
    let attempts = 0;
    const stubs = stubActivities({
      produceCaptureNow: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('Protocol error: Target closed');
        return STORED_FILE;
      },
    });
    await expect(runNow(randomUUID(), stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', 'produceCaptureNow', 'produceCaptureNow', 'recordCompletion']);
  });
});
