import { readRateLimit } from './headers';
import { parseOptions } from './options';
import { createPacer } from './pacer';
import type { Pacer } from './pacer';
import { wait } from './wait';
import type { RateLimitState } from './rate-limit-state';
import type { Config, FetchLike, GiveUpEvent, PoliteFetchOptions, WaitEvent } from './options';

/** What politeFetch returns: called exactly like `fetch`. */
export type PoliteFetch = FetchLike;

/** One call as politeFetch sees it. */
interface Call {
  url: string;
  /** Undefined when the URL does not parse (fetch will say why) or the scope option throws: nothing is paced. */
  scope: string | undefined;
  method: string;
  signal: AbortSignal | undefined;
  /** False for a body that is a stream: it is sent once and cannot be sent again. */
  replayable: boolean;
}

/**
 * Wraps `fetch` for an API that limits its callers. A throttled answer (a 429; a 503 with
 * `Retry-After`; a 403 with `Retry-After` or a spent policy, as GitHub sends) is retried after the
 * server's minimum wait (`Retry-After`, else the effective window of a policy with no units left)
 * plus a random share of `jitter`, so a crowd of clients does not come back at the same instant.
 * Once a response says a policy is spent, later calls to the same origin wait for the end of its
 * effective window instead of drawing a 429. Only idempotent methods are retried unless
 * `retryMethods` says otherwise; a stream body never is. The request's `signal` ends any wait at
 * once, with its reason.
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
    const spent = { waited: 0 };
    const pause = async (reason: WaitEvent['reason'], minimum: number, attempt: number, spread: number) => {
      const ms = Math.min(minimum + config.random() * spread, config.maxWait - spent.waited);
      notify(config.onWait, { reason, ms, minimum, attempt, url: call.url });
      await wait(ms, call.signal);
      spent.waited += ms;
    };
    if (pacer && call.scope !== undefined) {
      await paceBefore(pacer, call.scope, config.maxWait, spent, (ahead) => pause('pace', ahead, 1, config.jitter));
    }

    for (let attempt = 1; ; attempt++) {
      call.signal?.throwIfAborted();
      const response = await (config.fetch ?? globalThis.fetch)(input, init);
      const state = readRateLimit(response.headers);
      const throttled = isThrottled(response.status, state);
      // Retry-After on other statuses (a redirect, a 201) is not about rate limits.
      if (pacer && call.scope !== undefined) {
        pacer.learn(call.scope, throttled ? state : { policies: state.policies }, Date.now());
      }
      if (!throttled) return response;

      const hinted = minimumWait(state);
      const minimum = Math.max(
        hinted ?? 0,
        pacer && call.scope !== undefined ? pacer.blockedFor(call.scope, Date.now()) : 0,
      );
      const refusal = refuse(call, config, attempt, config.maxWait - spent.waited, minimum);
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
 * Holds a call while its scope has a spent policy, then looks again: a response that came back
 * meanwhile may have moved the end further, since the quota is not necessarily back once an
 * effective window ends (draft-11 §4.1.2). Pacing is advice: a wait longer than what is left of
 * maxWait is not made, and the server answers instead.
 */
async function paceBefore(
  pacer: Pacer,
  scope: string,
  maxWait: number,
  spent: { waited: number },
  pace: (ahead: number) => Promise<void>,
): Promise<void> {
  let waitedUntil = 0;
  for (;;) {
    const now = Date.now();
    const ahead = pacer.blockedFor(scope, now);
    // An end no later than the one just waited for is that same end, seen through timer rounding.
    if (ahead <= 0 || now + ahead <= waitedUntil || ahead > maxWait - spent.waited) return;
    waitedUntil = now + ahead;
    await pace(ahead);
  }
}

/**
 * A 429; a 503 with `Retry-After`; a 403 with `Retry-After` or a spent policy, as GitHub answers an
 * exhausted quota ("403 Forbidden or 429 Too Many Requests ... x-ratelimit-remaining 0").
 */
function isThrottled(status: number, state: RateLimitState): boolean {
  if (status === 429) return true;
  if (status === 503) return state.retryAfter !== undefined;
  return status === 403 && minimumWait(state) !== undefined;
}

/**
 * The least a retry must wait, in ms: `Retry-After`, which takes precedence over the RateLimit
 * fields (draft §7: "the Retry-After field MUST take precedence and the effective window MAY be
 * ignored"); else the latest effective window of a policy with no units left. Undefined when the
 * response gives neither.
 */
function minimumWait(state: RateLimitState): number | undefined {
  if (state.retryAfter !== undefined) return state.retryAfter;
  let minimum: number | undefined;
  for (const policy of state.policies) {
    if (policy.remaining === 0 && policy.effectiveWindow !== undefined) {
      minimum = Math.max(minimum ?? 0, policy.effectiveWindow);
    }
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
  return {
    url,
    scope: scopeOf(url, init, request, config),
    method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
    // As in fetch, `init.signal` (even null) replaces the Request's own.
    signal: (init !== undefined && 'signal' in init ? init.signal : request?.signal) ?? undefined,
    replayable: init?.body != null ? replayable(init.body) : (request?.body ?? null) === null,
  };
}

/** The call's pacing scope; undefined (no pacing) when the URL does not parse or the user's scope throws. */
function scopeOf(url: string, init: RequestInit | undefined, request: Request | undefined, config: Config) {
  try {
    const parsed = new URL(url, baseUrl());
    if (config.scope === undefined) return parsed.origin;
    // As in fetch, `init.headers` replaces the Request's own.
    return config.scope(parsed, new Headers(init?.headers ?? request?.headers));
  } catch {
    return undefined;
  }
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
