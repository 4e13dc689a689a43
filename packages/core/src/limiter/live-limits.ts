import { WarningCode } from '../base/warnings';

export type { LimitsFeed, LimitsUpdate } from './types';
import type { LimitRule, LimitsFeed, LimitsUpdate } from './types';
import type { CompiledRule } from './rules';
import type { Warn } from '../base/warnings';

/** A feed you publish to: what the sources of @floodgate/config are built on. */
export interface LimitsPublisher<Req = unknown> extends LimitsFeed<Req> {
  /** Makes `rules` current and hands them to every limiter following the feed. */
  publish(rules: readonly LimitRule<Req>[]): void;
  /** Tells every limiter following the feed that its source failed; their rules stay. */
  fail(error: unknown): void;
}

export function isLimitsFeed(value: unknown): value is LimitsFeed<never> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Partial<LimitsFeed>).subscribe === 'function'
  );
}

/**
 * A feed that starts with `rules`.
 *
 * @example
 * const feed = limitsPublisher(rulesFromDocument(document));
 * app.use(rateLimit({ limits: feed }));
 * feed.publish(rulesFromDocument(next)); // applies from the next request on
 */
export function limitsPublisher<Req = unknown>(rules: readonly LimitRule<Req>[]): LimitsPublisher<Req> {
  const listeners = new Set<(update: LimitsUpdate<Req>) => void>();
  let current = rules;
  const send = (update: LimitsUpdate<Req>) => {
    for (const listener of listeners) listener(update);
  };
  return {
    get rules() {
      return current;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(next) {
      current = next;
      send({ rules: next });
    },
    fail(error) {
      send({ error });
    },
  };
}

/**
 * Follows a feed for one limiter: each update is checked as createLimiter checks its `limits`
 * (`compile` throws the same coded errors) and handed to `replace` whole. One that fails, or a
 * source error, keeps the running rules and is reported on the warning channel, once per update.
 */
export function followFeed<Req>(
  feed: LimitsFeed<Req>,
  compile: (rules: readonly LimitRule<Req>[]) => CompiledRule<Req>[],
  replace: (rules: CompiledRule<Req>[]) => void,
  warn: Warn,
): () => void {
  let updates = 0;
  return feed.subscribe((update) => {
    updates++;
    let reason: unknown = update.error;
    if (update.rules !== undefined) {
      try {
        replace(compile(update.rules));
        return;
      } catch (error) {
        reason = error;
      }
    }
    warn(
      WarningCode.limitsRejected,
      `new limits were refused and the running ones kept: ${reason instanceof Error ? reason.message : String(reason)}`,
      String(updates),
    );
  });
}
