import { z } from 'zod';

export const ErrorBody = z
  .object({ msg: z.string(), status: z.number().int(), errors: z.array(z.string()) })
  .meta({ id: 'Error', description: 'Every error the API answers has this shape.' });

/** Query strings carry repeated (`?tags=a&tags=b`) or comma-separated (`?tags=a,b`) lists. */
export const queryList = z.preprocess(
  (value) => {
    if (value === undefined) return undefined;
    const items = Array.isArray(value) ? value : [value];
    return items.flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);
  },
  z.array(z.string().max(64)).max(50).optional(),
);

export const pageQuery = {
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).meta({ description: 'Zero-based page number' }),
  size: z.coerce.number().int().min(1).max(50).default(20).meta({ description: 'Page size, at most 50' }),
};

export const IdParam = z.object({ templateId: z.string().min(1).max(200) });

/** A version number: 1 for the template as created, one more for each change. */
export const versionNumber = z.coerce.number().int().min(1).max(1_000_000);

export const VersionParams = IdParam.extend({ version: versionNumber.meta({ description: 'Template version number' }) });
