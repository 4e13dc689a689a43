import { expect } from 'vitest';

/** [factory name, options, error class name, exact message] */
export type BadOptions = [string, unknown, string, string];

/** Calls `factory(options)` and checks the error it throws: its class, its stable code and its exact message. */
export function expectOptionError(
  factory: (options: never) => unknown,
  [, options, errorName, message]: BadOptions,
): void {
  let thrown: unknown;
  try {
    factory(options as never);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect(thrown).toMatchObject({ name: errorName, code: 'ERR_FLOODGATE_INVALID_OPTION', message });
}
