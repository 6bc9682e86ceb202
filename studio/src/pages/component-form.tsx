import { useEffect, useState } from 'react';
import type { ComponentAnimation } from '../../../domain/templates/components/component-document';
import { formatValue, parseValue } from '../component-values';
import type { Component, Property } from '../types';
import { AnimationFields } from './animation-fields';

const GEOMETRY = ['x', 'y', 'width', 'height', 'rotation', 'opacity', 'zIndex'] as const;

/** One property's field, by the input type the service gives it; JSON and HTML get room to write. */
const PropertyField = ({ property, value, onChange }: { property: Property; value: unknown; onChange: (value: unknown) => void }) => {
  const [text, setText] = useState(formatValue(value));
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setText(formatValue(value)), [value]);
  const id = `property-${property.key}`;
  const change = (next: string) => {
    setText(next);
    const parsed = parseValue(property.type, next);
    setProblem(parsed.ok ? null : parsed.message);
    if (parsed.ok) onChange(parsed.value);
  };

  if (property.type === 'boolean') {
    return (
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} /> {property.property}
      </label>
    );
  }
  const multiline = property.type === 'json' || property.type === 'html' || property.property === 'text';
  return (
    <div className="field">
      <label htmlFor={id}>
        {property.property} <span className="type">({property.type})</span>
      </label>
      {multiline ? (
        <textarea id={id} spellCheck={false} value={text} onChange={(event) => change(event.target.value)} aria-invalid={problem !== null} />
      ) : (
        <input id={id} type={property.type === 'number' ? 'number' : 'text'} step="any" value={text} onChange={(event) => change(event.target.value)} aria-invalid={problem !== null} />
      )}
      {problem && <span className="problem">{problem}</span>}
    </div>
  );
};

/** The selected component: where it sits, whether render data may change it, and the properties the service derived for it. */
export const ComponentForm = ({
  component,
  properties,
  animated,
  onChange,
}: {
  component: Component;
  properties: readonly Property[];
  animated: boolean;
  onChange: (change: Record<string, unknown>) => void;
}) => (
  <form className="component-form" aria-label={`Properties of ${component.id}`} onSubmit={(event) => event.preventDefault()}>
    <h2>
      {component.id} <span className="type">{component.type}</span>
    </h2>
    <div className="geometry">
      {GEOMETRY.map((name) => (
        <label key={name}>
          {name}
          <input
            type="number"
            step="any"
            value={formatValue(component[name])}
            onChange={(event) => onChange({ [name]: event.target.value === '' ? undefined : Number(event.target.value) })}
          />
        </label>
      ))}
    </div>
    <label className="check">
      <input type="checkbox" checked={component.locked === true} onChange={(event) => onChange({ locked: event.target.checked || undefined })} /> locked (render data
      cannot change it)
    </label>
    {properties.length === 0 && <p className="hint">Its properties appear once the component is saved.</p>}
    {properties.map((property) => (
      <PropertyField
        key={property.key}
        property={property}
        value={component[property.property ?? ''] ?? fallback(property)}
        onChange={(value) => onChange({ [property.property ?? '']: value })}
      />
    ))}
    {animated && <AnimationFields value={component.animation as ComponentAnimation | undefined} onChange={(animation) => onChange({ animation })} />}
  </form>
);

/** What the service says the value is when the document leaves it out (the type's default). */
const fallback = (property: Property): unknown => {
  const parsed = parseValue(property.type, property.defaultValue);
  return parsed.ok ? parsed.value : property.defaultValue;
};
