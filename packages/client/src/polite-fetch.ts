import { readRateLimit } from './headers';
import { parseOptions } from './options';
import { createPacer } from './pacer';
import { wait } from './wait';
import type { RateLimitState } from './rate-limit-state';
import type { Config, FetchLike, GiveUpEvent, PoliteFetchOptions, WaitEvent } from './options';

/** What politeFetch returns: called exactly like `fetch`. */
export type PoliteFetch = FetchLike;

/** One call as politeFetch sees it. */
interface Call {
  url: string;
  /** Undefined when the URL does not parse: fetch will say why, and nothing is paced. */
  scope: string | undefined;
  method: string;
  signal: AbortSignal | undefined;
  /** False for a body that is a stream: it is sent once and cannot be sent again. */
  replayable: boolean;
}

/**
 * Wraps `fetch` for an API that limits its callers. A 429 (or a 503 with `Retry-After`) is retried
 * after the server's minimum wait (`Retry-After`, or the reset of a policy with no units left) plus
 * a random share of `jitter`, so a crowd of clients does not come back at the same instant. Once a
 * response says a policy is spent, later calls to the same origin wait for its reset instead of
 * drawing a 429. Only idempotent methods are retried unless `retryMethods` says otherwise; a stream
 * body never is. The request's `signal` ends any wait at once, with its reason.
 *
 * @example
 * const api = politeFetch({ maxWait: '10 s' });
 * const response = await api('https://api.example.com/items', { signal: AbortSignal.timeout(15_000) });
 */
export function politeFetch(options: PoliteFetchOptions = {}): PoliteFetch {
  const config = parseOptions(options);
  const pacer = config.pace === false ? undefined : createPacer(config.pace);

  return async function politeFetch(input, init) {
    const call = describe(input, init, config);
    let waited = 0;
    const pause = async (reason: WaitEvent['reason'], minimum: number, attempt: number, spread: number) => {
      const ms = Math.min(minimum + config.random() * spread, config.maxWait - waited);
      notify(config.onWait, { reason, ms, minimum, attempt, url: call.url });
      await wait(ms, call.signal);
      waited += ms;
    };

    // Pacing is advice: a reset further off than maxWait is left to the server to answer.
    const ahead = pacer && call.scope !== undefined ? pacer.blockedFor(call.scope, Date.now()) : 0;
    if (ahead > 0 && ahead <= config.maxWait) await pause('pace', ahead, 1, config.jitter);

    for (let attempt = 1; ; attempt++) {
      call.signal?.throwIfAborted();
      const response = await (config.fetch ?? globalThis.fetch)(input, init);
      const state = readRateLimit(response.headers);
      const throttled = response.status === 429 || (response.status === 503 && state.retryAfter !== undefined);
      // Retry-After on other statuses (a redirect, a 201) is not about rate limits.
      if (pacer && call.scope !== undefined) {
        pacer.learn(call.scope, throttled ? state : { policies: state.policies }, Date.now());
      }
      if (!throttled) return response;

      const hinted = minimumWait(response.status, state);
      const minimum = Math.max(
        hinted ?? 0,
        pacer && call.scope !== undefined ? pacer.blockedFor(call.scope, Date.now()) : 0,
      );
      const refusal = refuse(call, config, attempt, config.maxWait - waited, minimum);
      if (refusal !== undefined) {
        notify(config.onGiveUp, { reason: refusal, status: response.status, attempt, url: call.url });
        return response;
      }
      // Free the connection before the wait; the body of a 429 is not needed.
      response.body?.cancel().catch(() => {});
      // Without a hint from the server: full jitter over an exponentially growing window.
      await pause(
        'retry',
        minimum,
        attempt + 1,
        hinted === undefined ? config.jitter * 2 ** (attempt - 1) : config.jitter,
      );
    }
  };
}

/**
 * The least a retry must wait, in ms: for a 503 its `Retry-After`; for a 429 the latest of
 * `Retry-After` and the resets of the policies with no units left. Undefined when none is given.
 */
function minimumWait(status: number, state: RateLimitState): number | undefined {
  let minimum = state.retryAfter;
  if (status !== 429) return minimum;
  for (const policy of state.policies) {
    if (policy.remaining === 0 && policy.effectiveWindow !== undefined) minimum = Math.max(minimum ?? 0, policy.effectiveWindow);
  }
  return minimum;
}

/** Why a throttled answer goes back to the caller now, or undefined to retry it. */
function refuse(
  call: Call,
  config: Config,
  attempt: number,
  budget: number,
  minimum: number,
): GiveUpEvent['reason'] | undefined {
  if (!config.retryMethods.has(call.method)) return 'method';
  if (!call.replayable) return 'body';
  if (attempt >= config.maxAttempts) return 'attempts';
  if (minimum > budget) return 'max-wait';
  return undefined;
}

function describe(input: RequestInfo | URL, init: RequestInit | undefined, config: Config): Call {
  const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
  const url = request?.url ?? (input instanceof URL ? input.href : String(input));
  let parsed: URL | undefined;
  try {
    parsed = new URL(url, baseUrl());
  } catch {
    parsed = undefined;
  }
  return {
    url,
    scope: parsed === undefined ? undefined : config.scope(parsed),
    method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
    // As in fetch, `init.signal` (even null) replaces the Request's own.
    signal: (init !== undefined && 'signal' in init ? init.signal : request?.signal) ?? undefined,
    replayable: init?.body != null ? replayable(init.body) : (request?.body ?? null) === null,
  };
}

/** A page's address, for relative URLs in a browser. Deno throws on `location` without --location. */
function baseUrl(): string | undefined {
  try {
    return globalThis.location?.href;
  } catch {
    return undefined;
  }
}

/**
 * Bodies fetch can send again: text, bytes, Blob, FormData, URLSearchParams. A ReadableStream (or
 * any other iterable Node accepts) is read as it is sent, so a second attempt would have nothing.
 */
function replayable(body: BodyInit): boolean {
  return (
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    body instanceof URLSearchParams
  );
}

function notify<E>(hook: ((event: E) => void) | undefined, event: E): void {
  try {
    hook?.(event);
  } catch {
    // A hook that throws must not turn a response into a failure.
  }
}
