import type { AnimatedValues, ComponentAnimation, Easing, Tween } from '../../domain/templates/components/component-document.js';

/** The values an animation may move, in the order the form shows them. */
export const ANIMATED_VALUES = ['x', 'y', 'scale', 'rotation', 'opacity'] as const satisfies readonly (keyof AnimatedValues)[];

export type Step = Tween & { readonly values: AnimatedValues };

/** A new step starts where the last one ends, for half a second, moving nothing until told. */
export const nextStep = (steps: readonly Tween[]): Step => {
  const last = steps.at(-1);
  return { offset: last ? last.offset + last.duration : 0, duration: 500, easing: 'ease-in-out' as Easing, values: {} };
};

/** A value typed in a form: empty leaves the value out (unchanged), anything else must be a number. */
export const withValue = (values: AnimatedValues, name: keyof AnimatedValues, text: string): AnimatedValues => {
  const { [name]: _dropped, ...rest } = values;
  const number = Number(text);
  return text.trim() === '' || !Number.isFinite(number) ? rest : { ...rest, [name]: number };
};

/** The document's animation from the form's three parts; absent when nothing animates. */
export const animationOf = (enter: Step | null, keyframes: readonly Step[], exit: Step | null): ComponentAnimation | undefined => {
  const tween = ({ offset, duration, easing }: Step) => ({ offset, duration, ...(easing ? { easing } : {}) });
  const animation: ComponentAnimation = {
    ...(enter ? { enter: { ...tween(enter), from: enter.values } } : {}),
    ...(keyframes.length > 0 ? { keyframes: keyframes.map((step) => ({ ...tween(step), to: step.values })) } : {}),
    ...(exit ? { exit: { ...tween(exit), to: exit.values } } : {}),
  };
  return Object.keys(animation).length > 0 ? animation : undefined;
};

/** The form's parts from a stored animation. */
export const stepsOf = (animation: ComponentAnimation | undefined) => ({
  enter: animation?.enter ? { ...animation.enter, values: animation.enter.from } : null,
  keyframes: (animation?.keyframes ?? []).map((step) => ({ ...step, values: step.to })),
  exit: animation?.exit ? { ...animation.exit, values: animation.exit.to } : null,
});
