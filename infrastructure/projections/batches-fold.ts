import type { BatchEvent } from '../../domain/batches/batch-events.js';
import type { RecordedEvent } from '../../domain/shared/events.js';
import { BatchRow } from '../read-models/entities.js';

/** A batch's row from its stream's events. */
export const evolveBatchRow = (row: BatchRow | null, event: RecordedEvent<BatchEvent>): BatchRow | null => {
  switch (event.type) {
    case 'BatchRequested': {
      const { batchId, orgId, name, templateId, templateVersion, outputFormat, total, credits, merge, webhookUrl, rows, requestedAt } = event.data;
      return {
        id: batchId,
        orgId,
        name,
        templateId,
        templateVersion,
        outputFormat,
        total,
        credits,
        merge,
        webhookUrl,
        rowsStorageKey: rows.storageKey,
        status: 'pending',
        createdAt: new Date(requestedAt),
        cancelledAt: null,
        endedAt: null,
        done: null,
        failed: null,
        cached: null,
        skipped: null,
        creditsCharged: null,
        mergedStorageKey: null,
      };
    }
    case 'BatchRowRefused':
      return row;
    case 'BatchCancelled':
      return row && row.status === 'pending' ? { ...row, status: 'cancelled', cancelledAt: new Date(event.data.cancelledAt) } : row;
    case 'BatchEnded': {
      if (!row) return row;
      const { done, failed, cached, skipped, creditsCharged, mergedStorageKey, endedAt } = event.data;
      return { ...row, status: 'ended', endedAt: new Date(endedAt), done, failed, cached, skipped, creditsCharged, mergedStorageKey };
    }
  }
};
