import { DomainError, validationError } from '../../domain/shared/errors.js';
import type { UrlGuard } from '../ports/page-capture.js';

/**
 * A request's webhookUrl passes the private-address guard before anything is written or charged:
 * a 400 naming the field now beats a day of deliveries that can never be made.
 */
export const assertWebhookUrlAllowed = async (urls: UrlGuard, webhookUrl: string | undefined): Promise<void> => {
  if (webhookUrl === undefined) return;
  try {
    await urls.assertUrlAllowed(webhookUrl);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'validation') throw validationError(`webhookUrl: ${error.message}`);
    throw error;
  }
};
