/** The module's options, as given to forRoot or made by forRootAsync's factory. */
export const FLOODGATE_OPTIONS = Symbol.for('floodgate.nestjs.options');
/** `@RateLimit(...)` options on a class or a handler. */
export const RATE_LIMIT_METADATA = 'floodgate:rate-limit';
/** `@SkipRateLimit(...)` on a class or a handler: `true`, or the names of the rules skipped. */
export const SKIP_RATE_LIMIT_METADATA = 'floodgate:skip-rate-limit';
/** Marks the ready status controller, which the guard lets through uncharged. */
export const STATUS_ROUTE_METADATA = 'floodgate:status-route';
