import { SetMetadata } from '@nestjs/common';
import { InvalidOptionTypeError } from '@floodgate/core';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from './tokens';
import type { RateLimitOptions } from './options';

/**
 * Options for the routes of a class, or for one handler (the handler's win over the class's, key by
 * key), over the module's. With `limit`/`window`, `limits`, `store` or `prefix` the route counts on
 * its own: each handler has its own counters, as each @nestjs/throttler route does. With only
 * `cost`, `skip`, `message`, headers or `priority`, it still counts in the module's counters:
 * changing how a 429 looks does not hand out a fresh quota.
 *
 * @example
 * \@RateLimit({ limit: 5, window: '1m' }) // 5 logins a minute per client address, on this route alone
 * \@Post('login')
 * login() {}
 */
export function RateLimit(options: RateLimitOptions): ClassDecorator & MethodDecorator {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionTypeError(`@RateLimit() takes an options object, got ${String(options)}`);
  }
  return SetMetadata(RATE_LIMIT_METADATA, options);
}

/**
 * Skips the limit on a class or a handler: every rule, or only the rules named (the others still
 * count, in the same counters). `@SkipRateLimit(false)` on a handler undoes its class's.
 *
 * @example
 * \@SkipRateLimit() // a health check is never limited
 * \@SkipRateLimit('burst') // the 'burst' rule does not apply here; the others do
 */
export function SkipRateLimit(...rules: (string | boolean)[]): ClassDecorator & MethodDecorator {
  let value: true | false | readonly string[] = true;
  if (rules.length === 1 && typeof rules[0] === 'boolean') value = rules[0];
  else if (rules.length > 0) {
    if (!rules.every((rule) => typeof rule === 'string' && rule !== '')) {
      throw new InvalidOptionTypeError(
        `@SkipRateLimit() takes rule names, or one true/false, got ${rules.map(String).join(', ')}`,
      );
    }
    value = rules as string[];
  }
  return SetMetadata(SKIP_RATE_LIMIT_METADATA, value);
}
