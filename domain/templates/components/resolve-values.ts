import { validationError } from '../../shared/errors.js';
import type { ComponentDocument } from './component-document.js';
import { propertyEntries } from './template-properties.js';

const LISTED_KEYS = 20;

/**
 * The value of every property of the document for one render: what the document stores, replaced
 * by `data` where it names the property. Unknown keys, locked properties and bad values are the
 * caller's mistake and refused with one line each. `null` and `undefined` in data mean "keep".
 */
export const resolveValues = (document: ComponentDocument, data: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const entries = propertyEntries(document);
  const byKey = new Map(entries.map((entry) => [entry.key, entry]));
  const problems: string[] = [];
  const unknown = Object.keys(data).filter((key) => !byKey.has(key));
  if (unknown.length > 0) {
    const known = entries.slice(0, LISTED_KEYS).map((entry) => entry.key);
    const hint = known.length === 0 ? 'the template has no properties' : `properties are ${known.join(', ')}${entries.length > LISTED_KEYS ? ', ...' : ''}`;
    problems.push(...unknown.map((key) => `data.${key}: no such property (${hint})`));
  }
  const values: Record<string, unknown> = {};
  for (const { key, component, spec, value } of entries) {
    const override = data[key];
    if (override === undefined || override === null) {
      values[key] = value;
      continue;
    }
    if (component.locked === true) {
      problems.push(`data.${key}: component '${component.id}' is locked`);
      continue;
    }
    const result = spec.check.check(override, true);
    if (result.ok) values[key] = result.value;
    else problems.push(`data.${key}: ${result.message}`);
  }
  if (problems.length > 0) {
    throw validationError(unknown.length > 0 ? `Unknown data keys: ${unknown.join(', ')}` : 'Invalid data for the template', problems);
  }
  return values;
};
