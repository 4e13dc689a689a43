/** A key or algorithm function that threw, rejected or never answered within the limiter's timeout. */
export class Failure {
  constructor(
    readonly error: unknown,
    readonly timedOut = false,
  ) {}
}

/** A key or algorithm function's rejection, kept to be reported (never thrown). */
export function toFailure(error: unknown): Failure {
  return new Failure(error);
}

export function toTimeout(error: unknown): Failure {
  return new Failure(error, true);
}
