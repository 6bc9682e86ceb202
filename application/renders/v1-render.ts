import { validationError } from '../../domain/shared/errors.js';
import type { RenderInput } from './request-render/render-input.js';

/**
 * The deprecated POST /api/v1/render, as a v2 render: its three ways of naming template values
 * become v2 `data`, keyed `<componentId>.<property>` (merge-field names for html-editor templates).
 */
export interface V1RenderRequest {
  readonly template: string;
  /** `{ id, <property>: value, ... }` per component; `{ id, property, value }` with USE_SIMPLE_ARRAY. */
  readonly changes?: readonly Record<string, unknown>[];
  /** Keyed `<componentId>.<property>`; component ids contain no dot. */
  readonly changesDictionary?: Record<string, unknown>;
  /** html-editor templates: merge-field values. */
  readonly mergeFields?: Record<string, unknown>;
  readonly fileName?: string;
  readonly webhookUrl?: string;
  readonly metadata?: Record<string, unknown>;
}

export interface V1RenderOptions {
  /** `options=USE_SIMPLE_ARRAY`: each change is `{ id, property, value }`. */
  readonly simpleArray: boolean;
}

const componentIdProblem = (id: unknown): string | null => {
  if (typeof id !== 'string' || id === '') return 'id must be a non-empty string';
  if (id.includes('.')) return `id "${id}" must not contain a dot`;
  return null;
};

/** Every change as `[key, value]` pairs, or the problems that make them unusable (one line each). */
const changeEntries = (changes: readonly Record<string, unknown>[], simpleArray: boolean) => {
  const entries: [string, unknown][] = [];
  const problems: string[] = [];
  changes.forEach((change, index) => {
    const where = `body.changes.${index}`;
    const idProblem = componentIdProblem(change.id);
    if (idProblem) return void problems.push(`${where}.id: ${idProblem}`);
    const id = change.id as string;
    if (!simpleArray) {
      for (const [property, value] of Object.entries(change)) if (property !== 'id') entries.push([`${id}.${property}`, value]);
      return;
    }
    const { property, value, ...rest } = change;
    if (typeof property !== 'string' || property === '') return void problems.push(`${where}.property: must be a non-empty string with USE_SIMPLE_ARRAY`);
    const extra = Object.keys(rest).filter((key) => key !== 'id');
    if (extra.length > 0) return void problems.push(`${where}: only id, property and value are allowed with USE_SIMPLE_ARRAY, not ${extra.join(', ')}`);
    entries.push([`${id}.${property}`, value]);
  });
  return { entries, problems };
};

const dictionaryProblems = (dictionary: Record<string, unknown>): string[] =>
  Object.keys(dictionary).flatMap((key) => {
    const dot = key.indexOf('.');
    if (dot <= 0 || dot === key.length - 1) return [`body.changesDictionary.${key}: keys are <componentId>.<property>`];
    return [];
  });

export const v1RenderInput = (request: V1RenderRequest, options: V1RenderOptions): RenderInput => {
  const { entries, problems } = changeEntries(request.changes ?? [], options.simpleArray);
  problems.push(...dictionaryProblems(request.changesDictionary ?? {}));
  if (problems.length > 0) throw validationError('Invalid changes', problems);
  const data = { ...Object.fromEntries(entries), ...request.changesDictionary, ...request.mergeFields };
  return {
    template: request.template,
    data,
    ...(request.fileName !== undefined ? { fileName: request.fileName } : {}),
    ...(request.webhookUrl !== undefined ? { webhookUrl: request.webhookUrl } : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
  };
};

/**
 * v1's view of a render's values: `{ id, <property>: value }` per component, from `<componentId>.<property>`
 * keys. Merge fields of html-editor templates have no component, so they are not changes.
 */
export const v1ChangesOf = (data: Record<string, unknown>): Record<string, unknown>[] => {
  const byComponent = new Map<string, Record<string, unknown>>();
  for (const [key, value] of Object.entries(data)) {
    const dot = key.indexOf('.');
    if (dot <= 0) continue;
    const id = key.slice(0, dot);
    const change = byComponent.get(id) ?? { id };
    change[key.slice(dot + 1)] = value;
    byComponent.set(id, change);
  }
  return [...byComponent.values()];
};
