import { useEffect, useState } from 'react';
import { COMPONENT_TYPES, type ComponentAnimation, type ComponentType } from '../../../domain/templates/components/component-document';
import { propertySpecsOf } from '../../../domain/templates/components/component-properties';
import { describeUpload, unlistedFamily, type FontFamilies } from '../assets';
import { formatValue, parseValue, valueOf } from '../component-values';
import type { Component, Property, Upload } from '../types';
import { AnimationFields } from './animation-fields';
import { ColorInput } from './color-input';
import { UploadThumbnail } from './upload-thumbnail';

const GEOMETRY = ['x', 'y', 'width', 'height', 'rotation', 'opacity', 'zIndex'] as const;

/** The organization's fonts and uploads for the fields that name them; null while loading or when they cannot be read (the field is then plain text). */
export interface AssetChoices {
  readonly families: FontFamilies | null;
  readonly uploads: readonly Upload[] | null;
}

/** A font family from the organization's list: its uploaded fonts, then the machine's; a family the document names outside the list stays choosable. */
const FontFamilySelect = ({ id, value, families, onChange }: { id: string; value: string; families: FontFamilies; onChange: (family: string) => void }) => {
  const unlisted = unlistedFamily(families, value);
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
      {unlisted !== null && (
        <optgroup label="Named by this template">
          <option value={unlisted}>{unlisted} (not in the font list)</option>
        </optgroup>
      )}
      {families.uploaded.length > 0 && (
        <optgroup label="Uploaded fonts">
          {families.uploaded.map((family) => (
            <option key={family}>{family}</option>
          ))}
        </optgroup>
      )}
      <optgroup label="Built-in fonts">
        {families.builtIn.map((family) => (
          <option key={family}>{family}</option>
        ))}
      </optgroup>
    </select>
  );
};

/** The organization's uploaded images as buttons: choosing one makes its address the image source. */
const UploadPicker = ({ value, uploads, onPick }: { value: string; uploads: readonly Upload[]; onPick: (href: string) => void }) => (
  <fieldset className="upload-picker">
    <legend>Uploaded images</legend>
    {uploads.length === 0 ? (
      <p className="hint">
        None yet: upload images on the <a href="#/assets">Assets</a> page.
      </p>
    ) : (
      <ul>
        {uploads.map((upload) => (
          <li key={upload.identifier}>
            <button
              type="button"
              aria-pressed={value === upload.href}
              aria-label={`Use the image ${describeUpload(upload)}, uploaded ${new Date(upload.createdAt).toLocaleString()}`}
              data-pick-upload={upload.identifier}
              onClick={() => onPick(upload.href)}
            >
              <UploadThumbnail upload={upload} alt="" />
            </button>
          </li>
        ))}
      </ul>
    )}
  </fieldset>
);

/** One property's field, by the input type the service gives it; JSON and HTML get room to write, fonts and image sources are offered from the organization's assets. */
/** The values a property of a fixed set takes, as the service's own checks list them. */
const optionsOf = (property: Property): readonly string[] =>
  (COMPONENT_TYPES as readonly string[]).includes(property.componentType) ? (propertySpecsOf(property.componentType as ComponentType)[property.property]?.check.options ?? []) : [];

const PropertyField = ({ property, value, choices, onChange }: { property: Property; value: unknown; choices: AssetChoices; onChange: (value: unknown) => void }) => {
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
  const imageSource = property.componentType === 'IMAGE' && property.property === 'src';
  return (
    <div className="field">
      <label htmlFor={id}>
        {property.property} <span className="type">({property.type})</span>
      </label>
      {property.type === 'font' && choices.families ? (
        <FontFamilySelect id={id} value={text} families={choices.families} onChange={change} />
      ) : property.type === 'select' && optionsOf(property).length > 0 ? (
        <select id={id} value={text} onChange={(event) => change(event.target.value)}>
          {optionsOf(property).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : property.type === 'color' ? (
        <ColorInput id={id} label={property.property} value={text} invalid={problem !== null} onChange={change} />
      ) : multiline ? (
        <textarea id={id} spellCheck={false} value={text} onChange={(event) => change(event.target.value)} aria-invalid={problem !== null} />
      ) : (
        <input id={id} type={property.type === 'number' ? 'number' : 'text'} step="any" value={text} onChange={(event) => change(event.target.value)} aria-invalid={problem !== null} />
      )}
      {problem && <span className="problem">{problem}</span>}
      {imageSource && choices.uploads && <UploadPicker value={text} uploads={choices.uploads} onPick={change} />}
    </div>
  );
};

/** Shown as a toggle of its own beside `locked`, from the moment the component is added (the properties come once it is saved). */
const HIDDEN = 'hidden';

/** The selected component: where it sits, whether it shows, whether render data may change it, and the properties the service derived for it. */
export const ComponentForm = ({
  component,
  properties,
  animated,
  choices,
  onChange,
}: {
  component: Component;
  properties: readonly Property[];
  animated: boolean;
  choices: AssetChoices;
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
      <input type="checkbox" checked={component[HIDDEN] === true} onChange={(event) => onChange({ [HIDDEN]: event.target.checked || undefined })} /> hidden (left out
      of renders)
    </label>
    <label className="check">
      <input type="checkbox" checked={component.locked === true} onChange={(event) => onChange({ locked: event.target.checked || undefined })} /> locked (render data
      cannot change it)
    </label>
    {properties.length === 0 && <p className="hint">Its properties appear once the component is saved.</p>}
    {properties.filter((property) => property.property !== HIDDEN).map((property) => (
      <PropertyField
        key={property.key}
        property={property}
        value={valueOf(component, property.property) ?? fallback(property)}
        choices={choices}
        onChange={(value) => onChange({ [property.property]: value })}
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
