import { z } from 'zod';

/** Building blocks shared by the contexts' event schemas. */

/** Times in events are ISO 8601 timestamps written by the service's clock. */
export const isoTime = z.iso.datetime({ offset: true });

/** yyyy-MM-dd */
export const isoDate = z.iso.date();

export const jsonObject = z.record(z.string(), z.unknown());

export const id = z.string().min(1);
