import type { Component, ComponentDocument, ComponentType } from './component-document.js';
import { propertyKey, propertySpecsOf, type PropertySpec } from './component-properties.js';
import type { PropertyInput } from './property-checks.js';

/** An editable placeholder of a template (API spec, Property). */
export interface TemplateProperty {
  /** `<componentId>.<property>`: the key of render data. */
  readonly key: string;
  readonly type: PropertyInput;
  /** The stored value as text (JSON for lists). */
  readonly defaultValue: string;
  readonly componentId: string;
  readonly componentType: ComponentType;
  readonly property: string;
  readonly locked: boolean;
}

export interface PropertyEntry {
  readonly key: string;
  readonly component: Component;
  readonly name: string;
  readonly spec: PropertySpec;
  /** What the document stores, or the type's default. */
  readonly value: unknown;
}

/** Every property of every component, in document order. */
export const propertyEntries = (document: ComponentDocument): PropertyEntry[] =>
  document.components.flatMap((component) =>
    Object.entries(propertySpecsOf(component.type)).map(([name, spec]) => ({
      key: propertyKey(component.id, name),
      component,
      name,
      spec,
      value: component[name] ?? spec.defaultValue,
    })),
  );

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export const deriveProperties = (document: ComponentDocument): TemplateProperty[] =>
  propertyEntries(document).map(({ key, component, name, spec, value }) => ({
    key,
    type: spec.check.input,
    defaultValue: asText(value),
    componentId: component.id,
    componentType: component.type,
    property: name,
    locked: component.locked === true,
  }));
