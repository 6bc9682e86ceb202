import type { ComponentAnimation, Easing } from '../../../domain/templates/components/component-document';
import { EASINGS } from '../../../domain/templates/components/component-document';
import { ANIMATED_VALUES, animationOf, nextStep, stepsOf, withValue, type Step } from '../animation';

/** One step of an animation: when it starts and how long it takes, how it eases, and the values it moves. */
const StepFields = ({ label, valuesLabel, step, onChange, onRemove }: { label: string; valuesLabel: string; step: Step; onChange: (step: Step) => void; onRemove: () => void }) => (
  <fieldset className="step">
    <legend>{label}</legend>
    <div className="step-grid">
      <label>
        start (ms) <input type="number" min={0} step={100} value={step.offset} onChange={(event) => onChange({ ...step, offset: Math.max(0, Number(event.target.value)) })} />
      </label>
      <label>
        duration (ms) <input type="number" min={0} step={100} value={step.duration} onChange={(event) => onChange({ ...step, duration: Math.max(0, Number(event.target.value)) })} />
      </label>
      <label>
        easing
        <select value={step.easing ?? 'linear'} onChange={(event) => onChange({ ...step, easing: event.target.value as Easing })}>
          {EASINGS.map((easing) => (
            <option key={easing}>{easing}</option>
          ))}
        </select>
      </label>
    </div>
    <div className="step-grid" role="group" aria-label={`${label}: ${valuesLabel}`}>
      {ANIMATED_VALUES.map((name) => (
        <label key={name}>
          {valuesLabel} {name}
          <input type="number" step="any" value={step.values[name] ?? ''} placeholder="-" onChange={(event) => onChange({ ...step, values: withValue(step.values, name, event.target.value) })} />
        </label>
      ))}
    </div>
    <button type="button" onClick={onRemove}>
      Remove {label.toLowerCase()}
    </button>
  </fieldset>
);

/**
 * canvas-html only: the component's entry (from values to its resting state), keyframes (to new
 * values, one after another) and exit (to values, then hidden). An empty value is left unchanged.
 */
export const AnimationFields = ({ value, onChange }: { value: ComponentAnimation | undefined; onChange: (animation: ComponentAnimation | undefined) => void }) => {
  const { enter, keyframes, exit } = stepsOf(value);
  const set = (next: { enter?: Step | null; keyframes?: readonly Step[]; exit?: Step | null }) =>
    onChange(animationOf(next.enter === undefined ? enter : next.enter, next.keyframes ?? keyframes, next.exit === undefined ? exit : next.exit));

  return (
    <fieldset className="animation">
      <legend>Animation</legend>
      {enter ? (
        <StepFields label="Entry" valuesLabel="from" step={enter} onChange={(step) => set({ enter: step })} onRemove={() => set({ enter: null })} />
      ) : (
        <button type="button" onClick={() => set({ enter: { ...nextStep([]), duration: 800, easing: 'ease-out', values: { opacity: 0 } } })}>
          Add entry
        </button>
      )}
      {keyframes.map((step, index) => (
        <StepFields
          key={index}
          label={`Keyframe ${index + 1}`}
          valuesLabel="to"
          step={step}
          onChange={(changed) => set({ keyframes: keyframes.map((each, at) => (at === index ? changed : each)) })}
          onRemove={() => set({ keyframes: keyframes.filter((_, at) => at !== index) })}
        />
      ))}
      <button type="button" onClick={() => set({ keyframes: [...keyframes, nextStep(enter ? [enter, ...keyframes] : keyframes)] })}>
        Add keyframe
      </button>
      {exit ? (
        <StepFields label="Exit" valuesLabel="to" step={exit} onChange={(step) => set({ exit: step })} onRemove={() => set({ exit: null })} />
      ) : (
        <button type="button" onClick={() => set({ exit: { ...nextStep(keyframes), values: { opacity: 0 } } })}>
          Add exit
        </button>
      )}
    </fieldset>
  );
};
