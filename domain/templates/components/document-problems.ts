import { validationError } from '../../shared/errors.js';
import type { Editor } from '../template-settings.js';
import { COMPONENT_BASE_KEYS, componentLabel, type ComponentDocument } from './component-document.js';
import { propertySpecsOf, ruleProblemOf } from './component-properties.js';
import { color } from './property-checks.js';

/** html-editor templates have markup instead of components (and canvas templates no markup). */
export const assertUsesComponents = (templateId: string, editor: Editor): void => {
  if (editor === 'html-editor') {
    throw validationError(`Template ${templateId} uses the html-editor; components are only for canvas-editor and canvas-html templates`);
  }
};

const BASE_KEYS: ReadonlySet<string> = new Set(COMPONENT_BASE_KEYS);

/**
 * The rules of a component document beyond its shape (which the edge validates): ids that can form
 * property keys, known and valid properties, rules between a component's properties (a barcode's
 * value and format), animation only where the editor can play it. One line per problem, each
 * naming the component and property.
 */
export const documentProblems = (document: ComponentDocument, editor: Editor): string[] => {
  const problems: string[] = [];
  if (document.background !== undefined && !color.check(document.background, false).ok) {
    problems.push('background: must be a colour');
  }
  const seen = new Set<string>();
  document.components.forEach((component, index) => {
    const label = componentLabel(index, component.id);
    if (component.id.includes('.')) problems.push(`${label}.id: must not contain a dot (property keys are <componentId>.<property>)`);
    if (seen.has(component.id)) problems.push(`${label}.id: is used by an earlier component; ids must be unique`);
    seen.add(component.id);
    if (component.animation !== undefined && editor !== 'canvas-html') {
      problems.push(`${label}.animation: only canvas-html templates animate`);
    }
    const specs = propertySpecsOf(component.type);
    const before = problems.length;
    for (const [name, value] of Object.entries(component)) {
      if (BASE_KEYS.has(name) || value === undefined) continue;
      const spec = specs[name];
      if (!spec) {
        problems.push(`${label}.${name}: is not a property of ${component.type} (it has ${Object.keys(specs).join(', ')})`);
        continue;
      }
      const result = spec.check.check(value, false);
      if (!result.ok) problems.push(`${label}.${name}: ${result.message}`);
    }
    if (problems.length > before) return;
    const props = Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, component[name] ?? spec.defaultValue]));
    const rule = ruleProblemOf(component.type, props);
    if (rule) problems.push(`${label}.${rule.properties[0]}: ${rule.message}`);
  });
  return problems;
};
