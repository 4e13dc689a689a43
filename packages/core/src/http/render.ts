import { isThenable } from '../base/thenable';
import { acceptsJson, buildProblem, deniedStatus, problemJson } from './problem';
import type { Decision } from '../limiter/decision';
import type { MaybePromise } from '../base/thenable';
import type { HttpConfig } from './options';
import type { ProblemDetails } from './problem';

/** A denied request as the adapter answers it; its headers are already set. */
export class Denial {
  constructor(
    readonly status: number,
    readonly decision: Decision,
    /** Undefined when the user's `handler` answers instead. */
    readonly body: DenialBody | undefined,
  ) {}
}

/**
 * What a denial sends: `text` as `contentType`. A problem details body also keeps `json`, the
 * object its text is the JSON of, for an adapter whose framework writes JSON itself (Nest's
 * exception filter); its text is made only when an adapter reads it.
 */
export interface DenialBody {
  readonly contentType: string;
  readonly text: string;
  readonly json?: object;
}

/** Problem details as JSON: the text is the last 429's while the answer is the same; the object is made when read. */
class ProblemBody implements DenialBody {
  #json: ProblemDetails | undefined = undefined;

  constructor(
    private readonly decision: Decision,
    private readonly status: number,
  ) {}

  get contentType(): string {
    return 'application/problem+json';
  }

  get text(): string {
    return problemJson(this.decision, this.status);
  }

  get json(): ProblemDetails {
    this.#json ??= buildProblem(this.decision, this.status);
    return this.#json;
  }
}

/**
 * Status and body of a denied request: 503 when the store was unavailable, else the `statusCode`
 * option; the body from `message`, else RFC 9457 problem details negotiated on `Accept`. No body
 * when the user's `handler` will answer.
 */
export function renderDenial<Req>(
  config: HttpConfig<Req, never, unknown>,
  req: Req,
  accept: string | undefined,
  decision: Decision,
): MaybePromise<Denial> {
  const status = deniedStatus(decision, config.statusCode);
  if (config.handler !== undefined) return new Denial(status, decision, undefined);
  if (config.message === undefined) return problemDenial(status, accept, decision, config.statusCode);
  let message: unknown;
  try {
    message = config.message(req, decision);
  } catch {
    return problemDenial(status, accept, decision, config.statusCode);
  }
  if (!isThenable(message)) return messageDenial(status, message, accept, decision, config.statusCode);
  return Promise.resolve(message).then(
    (value) => messageDenial(status, value, accept, decision, config.statusCode),
    // A message function that fails still leaves the client a proper 429, with the default body.
    () => problemDenial(status, accept, decision, config.statusCode),
  );
}

function messageDenial(
  status: number,
  message: unknown,
  accept: string | undefined,
  decision: Decision,
  statusCode: number,
): Denial {
  if (typeof message === 'string')
    return new Denial(status, decision, { contentType: 'text/plain; charset=utf-8', text: message });
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch {
    text = undefined;
  }
  if (text === undefined) return problemDenial(status, accept, decision, statusCode);
  return new Denial(status, decision, { contentType: 'application/json; charset=utf-8', text });
}

/** As negotiateProblem answers, with the body made only in the form an adapter reads. */
function problemDenial(status: number, accept: string | undefined, decision: Decision, statusCode: number): Denial {
  if (acceptsJson(accept)) return new Denial(status, decision, new ProblemBody(decision, statusCode));
  const text = buildProblem(decision, statusCode).detail;
  return new Denial(status, decision, { contentType: 'text/plain; charset=utf-8', text });
}
