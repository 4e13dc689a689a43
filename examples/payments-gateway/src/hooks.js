/**
 * One set of limiter hooks that calls `first`'s and then `second`'s: a limiter takes one function
 * per hook, and the gateway feeds both its metrics and whatever the caller passes (tests, logging).
 *
 * @template {Record<string, ((event: any) => unknown) | undefined>} A
 * @template {Record<string, ((event: any) => unknown) | undefined>} B
 * @param {A} first
 * @param {B} second
 */
export function bothHooks(first, second) {
  /** @type {Record<string, (event: unknown) => void>} */
  const hooks = {};
  for (const name of new Set([...Object.keys(first), ...Object.keys(second)])) {
    hooks[name] = (event) => {
      first[name]?.(event);
      second[name]?.(event);
    };
  }
  return hooks;
}
