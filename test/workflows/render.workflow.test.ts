import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError, UnavailableError } from '../../domain/shared/errors.js';
import { renderWorkflow, syncRenderWorkflow } from '../../workflows/render.workflow.js';
import { COMPLETED_AT, FAILED_AT, STORED_FILE, refusedWith, stubActivities, useWorkflowEnvironment } from '../support/workflow-env.js';

const environment = useWorkflowEnvironment();

/*
 * The render workflows take the same branches; they differ in how the file is produced: a
 * heartbeating activity on the task queue for renders answered later, a local activity for a
 * client that waits, and for a batch's row.
 */
describe.each([
  { name: 'renderWorkflow', workflow: renderWorkflow, produce: 'produceRender', batchRow: false },
  { name: 'renderWorkflow of a batch row', workflow: renderWorkflow, produce: 'produceRender', batchRow: true },
  { name: 'syncRenderWorkflow', workflow: syncRenderWorkflow, produce: 'produceRenderNow', batchRow: false },
] as const)('$name', ({ workflow, produce, batchRow }) => {
  const run = (requestId: string, webhook: boolean, stubs: ReturnType<typeof stubActivities>) =>
    environment.execute(workflow, requestId, { requestId, webhook, ...(batchRow ? { batchRow } : {}) }, stubs.activities);

  it('charges, produces, records the file, then tells the webhook: done at the completion’s position', async () => {
    const requestId = randomUUID();
    const stubs = stubActivities();

    await expect(run(requestId, true, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });

    expect(stubs.names()).toEqual(['chargeCredits', produce, 'recordCompletion', 'webhookRetryPolicy', 'deliverWebhook']);
    expect(stubs.calls.find((call) => call.name === 'recordCompletion')?.input).toEqual({ requestId, file: STORED_FILE });
    expect(stubs.calls.find((call) => call.name === 'deliverWebhook')?.input).toEqual({ requestId, deliveryId: expect.any(String) });
  });

  it('tells no webhook when the request has none', async () => {
    const stubs = stubActivities();
    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', produce, 'recordCompletion']);
  });

  it(`produces the file ${workflow === renderWorkflow && !batchRow ? 'as an activity on the task queue' : 'as a local activity, in one workflow task'}`, async () => {
    const requestId = randomUUID();
    await run(requestId, false, stubActivities());
    const events = await environment.eventTypes(requestId);
    expect(events.filter((type) => type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').length).toBe(workflow === renderWorkflow && !batchRow ? 1 : 0);
    expect(events.filter((type) => type === 'EVENT_TYPE_MARKER_RECORDED').length).toBe(workflow === renderWorkflow && !batchRow ? 2 : 3);
  });

  it.each([
    { refusal: new DomainError('payment_required', 'Not enough credits: 1 needed, 0 left'), code: 'payment_required' },
    { refusal: new DomainError('not_found', 'Account not found'), code: 'failed' },
  ])('records a refused charge ($refusal.code) as the failure, produces nothing, refunds nothing', async ({ refusal, code }) => {
    const requestId = randomUUID();
    const stubs = stubActivities({ chargeCredits: refusedWith(refusal) });

    await expect(run(requestId, false, stubs)).resolves.toEqual({ status: 'failed', reason: refusal.message, code, position: FAILED_AT });

    // Not retried: the refusal is final, and the failure is recorded whole (a caller in the worker's process is told it).
    expect(stubs.names()).toEqual(['chargeCredits', 'recordFailure']);
    expect(stubs.calls[1]?.input).toEqual({ requestId, status: 'failed', reason: refusal.message, code });
  });

  it('tells the webhook of a failure too, once it is recorded: after a refused charge and after a failed production', async () => {
    const refused = stubActivities({ chargeCredits: refusedWith(new DomainError('payment_required', 'Not enough credits')) });
    await expect(run(randomUUID(), true, refused)).resolves.toMatchObject({ status: 'failed', code: 'payment_required' });
    expect(refused.names()).toEqual(['chargeCredits', 'recordFailure', 'webhookRetryPolicy', 'deliverWebhook']);

    const rejected = stubActivities({ [produce]: refusedWith(new DomainError('validation', 'The template never finished loading')) });
    await expect(run(randomUUID(), true, rejected)).resolves.toMatchObject({ status: 'failed', code: 'validation' });
    expect(rejected.names()).toEqual(['chargeCredits', produce, 'refundCredits', 'recordFailure', 'webhookRetryPolicy', 'deliverWebhook']);
  });

  it('retries a failed production three times, then refunds and records the failure: failed', async () => {
    const requestId = randomUUID();
    const crash = new DomainError('failed', 'The page crashed');
    const stubs = stubActivities({ [produce]: refusedWith(crash) });

    await expect(run(requestId, false, stubs)).resolves.toEqual({ status: 'failed', reason: crash.message, code: 'failed', position: FAILED_AT });

    expect(stubs.names()).toEqual(['chargeCredits', produce, produce, produce, 'refundCredits', 'recordFailure']);
    expect(stubs.calls.at(-1)?.input).toEqual({ requestId, status: 'failed', reason: crash.message, code: 'failed' });
  });

  it('refunds a template that cannot be rendered at once, without retrying: the request is at fault (validation)', async () => {
    const deadline = new DomainError('validation', 'The page did not finish rendering within 30000 ms');
    const stubs = stubActivities({ [produce]: refusedWith(deadline) });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'failed', reason: deadline.message, code: 'validation', position: FAILED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', produce, 'refundCredits', 'recordFailure']);
  });

  it('refunds when the pool stays full through the retries: unavailable with the last refusal’s Retry-After', async () => {
    let refusals = 0;
    const stubs = stubActivities({
      [produce]: () => {
        refusals += 1;
        return refusedWith(new UnavailableError('No page was freed in time', 10 + refusals))();
      },
    });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({
      status: 'failed',
      reason: 'No page was freed in time',
      code: 'unavailable',
      retryAfterSeconds: 13,
      position: FAILED_AT,
    });
    expect(stubs.names()).toEqual(['chargeCredits', produce, produce, produce, 'refundCredits', 'recordFailure']);
  });

  it('produces again after a lost browser and charges once: done, nothing refunded', async () => {
    let attempts = 0;
    const stubs = stubActivities({
      [produce]: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('Protocol error: Target closed');
        return STORED_FILE;
      },
    });

    await expect(run(randomUUID(), false, stubs)).resolves.toEqual({ status: 'done', file: STORED_FILE, position: COMPLETED_AT });
    expect(stubs.names()).toEqual(['chargeCredits', produce, produce, 'recordCompletion']);
  });
});
