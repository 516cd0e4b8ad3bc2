/**
 * How every construct applies its defaults: once, at the top of the constructor, from a `DEFAULTS` object that is
 * the data the props' `@default` docs describe. A prop passed as `undefined` counts as not given (CDK's own
 * convention, and what `props.x ?? default` did before), so it never hides a default.
 */

/** Props after their defaults are applied: every key that has a default is set. */
export type WithDefaults<P, D> = P & {
  readonly [K in keyof D]-?: K extends keyof P ? Exclude<P[K], undefined> : D[K];
};

/** `{ ...defaults, ...props }` where props' `undefined` values do not override a default. */
export function withDefaults<P extends object, D extends object>(defaults: D, props: P): WithDefaults<P, D> {
  const given = Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined));
  return { ...defaults, ...given } as WithDefaults<P, D>;
}
