import type { Algorithm } from '../algorithms/types';
import type { Decision } from './decision';
import type { Duration } from '../base/duration';
import type { KeyContext, KeyFunction } from '../keys/context';
import type { KeyScope } from '../keys/scope';
import type { ResilienceOptions } from '../resilience/options';
import type { Store } from '../store/store';
import type { FloodgateWarning } from '../base/warnings';

/**
 * A rule's algorithm per request: a plan tier, an override from a config table. It receives the
 * framework's request (Express `req`, Fastify `request`, Hono `c`). Return the same Algorithm
 * object for the same tier (or call the factory: it hands back the one it made for equal options,
 * so options are checked once). A tenant moved to another tier is counted afresh under the new one.
 */
export type AlgorithmFunction<Req = unknown> = (req: Req) => Algorithm | Promise<Algorithm>;

/** Whether a request may use the reserve (see the algorithms' `reserve` option). */
export type Priority = 'critical' | 'normal';

/**
 * Picks a request's priority from the framework's request; anything but `'critical'` is normal.
 * Decide it from what the server established (the route your router matched, a verified API key),
 * never from the URL string or a header: a client can put anything there.
 */
export type PriorityFunction<Req = unknown> = (req: Req) => Priority;

/** Blocks for repeat offenders: each block within `period` of the previous doubles, up to `max`. */
export interface EscalateOptions {
  period: Duration;
  max: Duration;
}

/**
 * Local enforcement of a hot key: an instance takes `size` units in one store call and hands them
 * out itself until they run out or `ttl` passes; what is left goes back to the store.
 */
export interface LeaseOptions {
  size: number;
  ttl: Duration;
}

/** One layer of a policy: a name, how to identify the client, and the algorithm that limits it. */
export interface LimitRule<Req = unknown> {
  /** Appears in keys, headers and `Decision.rule`: 1-64 characters from `[A-Za-z0-9._-]`. */
  name: string;
  key: KeyFunction<Req>;
  /**
   * Whose key this is. `'client'`: one client's (its address, user, API key), so `reset`, `block`
   * and `unblock` called for a request, the status route and a penalty (`blockDuration`) act on
   * it. `'shared'`: many clients' (a global ceiling, a tenant, a route), which those act on only
   * when the rule is named (`{ rule }`), and which cannot carry a penalty. Default: `'client'` for
   * byIp(), byUser() and byApiKey() (and layered()'s layers), `'shared'` for byHeader() and your own
   * functions: say `'client'` for a function that returns one client's identity.
   */
  scope?: KeyScope;
  /** The algorithm, or a function of the request that picks one (per-tenant limits). */
  algorithm: Algorithm | AlgorithmFunction<Req>;
  /** Counted and reported, never enforced: its denials let the request through. Default: the limiter's. */
  shadow?: boolean;
  /** This rule's priority function; default: the limiter's. */
  priority?: PriorityFunction<Req>;
  /** Once this rule denies a client, it stays denied this long. Only on a rule of scope `'client'`. */
  blockDuration?: Duration;
  /** With blockDuration: longer blocks for repeat offenders. */
  escalate?: EscalateOptions;
  /** Hand out this rule's units locally, `size` at a time (fixedWindow, tokenBucket, gcra, leakyBucket policing). */
  lease?: LeaseOptions;
}

/**
 * createLimiter's options. Besides the store and the layers, the resilience options (`timeout`,
 * `failMode`, `instances`, `breaker`, `denyCache`) and the event hooks apply to a remote store;
 * a local one (MemoryStore) is used as it is, and only the hooks apply.
 */
export interface LimiterOptions<Req = unknown> extends ResilienceOptions<Req> {
  /** Where state lives. Default: a new MemoryStore using `clock`. */
  store?: Store;
  /** Start of every key. Default `'fg'`. */
  prefix?: string;
  /**
   * The layers; a request passes only if every layer that applies allows it. A LimitsFeed (e.g.
   * @floodgate/config's limitsFromFile) replaces them while the limiter runs.
   */
  limits: readonly LimitRule<Req>[] | LimitsFeed<Req>;
  /** Shadow mode for every rule: decisions are counted and reported, never enforced. Default false. */
  shadow?: boolean;
  /** Every rule's priority function (a rule's own wins). Default: every request is normal. */
  priority?: PriorityFunction<Req>;
  /**
   * Time source in epoch ms for a MemoryStore the limiter creates, and for the breaker, the local
   * fallback and the deny cache. Default `Date.now`.
   */
  clock?: () => number;
  /** Where run-time warnings go (each code once per limiter). Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
}

export interface ConsumeOptions {
  /** Units to charge every layer. Default 1. */
  cost?: number;
  /**
   * This request's priority, when the caller knows it (the route it is serving): it stands for the
   * limiter's `priority` function; a rule with a function of its own still decides for itself.
   * Default: the functions decide.
   */
  priority?: Priority;
}

/**
 * Which rules a control operation applies to: one by name (whatever its scope), or by default
 * every rule of scope `'client'` (the request's own keys, never a key other clients share).
 */
export interface RuleSelector {
  rule?: string;
}

export interface Limiter<Req = unknown> {
  readonly prefix: string;
  readonly store: Store;
  consume(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<Decision>;
  /**
   * Gives `cost` units (default 1) back to the layers that charged the request. After
   * `consume(ctx)` with the same ctx object: at most what that consume charged, less what was
   * already given back (nothing after a denial). For a ctx this limiter has not seen, it cannot know
   * what was charged: `cost` goes back to every layer the ctx maps to now. Rejects with
   * `ERR_FLOODGATE_INVALID_COST` for a cost that is not a whole number >= 0.
   */
  refund(ctx: KeyContext<Req>, options?: Pick<ConsumeOptions, 'cost'>): Promise<void>;
  /** The Decision a request of `cost` (default 1) would get now, charging nothing. */
  peek(ctx: KeyContext<Req>, options?: ConsumeOptions): Promise<Decision>;
  /** Clears the request's own keys (its client-scope rules, or the rule named): counts, blocks and penalty history. */
  reset(ctx: KeyContext<Req>, options?: RuleSelector): Promise<void>;
  /** Denies every request on the request's own keys (or the rule named) for `duration`, on every instance sharing the store. */
  block(ctx: KeyContext<Req>, duration: Duration, options?: RuleSelector): Promise<void>;
  /**
   * Lifts the blocks of the request's own keys (or the rule named), an operator's or a penalty, and
   * forgets the penalty history. On a rule with a penalty whose quota is spent (the next request
   * would be denied, and penalised again) it also starts the quota afresh; otherwise counts are kept.
   */
  unblock(ctx: KeyContext<Req>, options?: RuleSelector): Promise<void>;
  /** Gives leased units back to the store; call it before the process exits. */
  close(): Promise<void>;
}

/** A new set of rules from a feed's source, or the reason its source could not give one. */
export type LimitsUpdate<Req = unknown> =
  | { readonly rules: readonly LimitRule<Req>[]; readonly error?: undefined }
  | { readonly rules?: undefined; readonly error: unknown };

/**
 * Rules that change while the limiter runs (a watched file, a Redis key): give one as `limits`.
 * `rules` are the current ones; each update a limiter receives replaces its rules between two
 * requests: every request is decided by one set, the old or the new, never a mix.
 */
export interface LimitsFeed<Req = unknown> {
  readonly rules: readonly LimitRule<Req>[];
  /** Calls `listener` with each update; returns the function that stops it. */
  subscribe(listener: (update: LimitsUpdate<Req>) => void): () => void;
}
