import { validationError } from '../../shared/errors.js';
import type { ComponentDocument } from './component-document.js';
import { propertyKey, propertySpecsOf, ruleProblemOf } from './component-properties.js';
import { propertyEntries } from './template-properties.js';

const LISTED_KEYS = 20;

/**
 * The value of every property of the document for one render: what the document stores, replaced
 * by `data` where it names the property. Unknown keys, locked properties and bad values are the
 * caller's mistake and refused with one line each, as are values that break a rule between a
 * component's properties (a barcode value its format cannot hold). `null` and `undefined` in data
 * mean "keep".
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
  for (const component of document.components) {
    const names = Object.keys(propertySpecsOf(component.type));
    // A component with a refused value has its problem reported already.
    if (!names.every((name) => propertyKey(component.id, name) in values)) continue;
    const rule = ruleProblemOf(component.type, Object.fromEntries(names.map((name) => [name, values[propertyKey(component.id, name)]])));
    if (!rule) continue;
    // Named by the key the data gave, since the data made the values disagree (the document was checked when saved).
    const named = rule.properties.find((name) => data[propertyKey(component.id, name)] != null) ?? rule.properties[0];
    problems.push(`data.${propertyKey(component.id, named)}: ${rule.message}`);
  }
  if (problems.length > 0) {
    throw validationError(unknown.length > 0 ? `Unknown data keys: ${unknown.join(', ')}` : 'Invalid data for the template', problems);
  }
  return values;
};
