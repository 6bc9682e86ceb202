/**
 * Sample data for a template's merge fields as the service lists them, keeping the values already
 * typed for fields that are still there; a new field starts as its own name, so it shows in the preview.
 */
export const sampleDataFor = (fields: readonly string[], previous: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(fields.map((field) => [field, previous[field] ?? field]));
