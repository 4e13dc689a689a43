// Names the fragments of packages/express/README.md take from their surroundings.
declare const app: import('express').Express;
/** The app's own route handlers. */
declare const search: import('express').RequestHandler;
declare function run(body: unknown): Promise<{ result: unknown; cost: number }>;
declare const limits: import('@floodgate/express').LimitRule<import('express').Request>[];
declare const store: import('@floodgate/express').Store;
declare const limiter: import('@floodgate/express').RateLimitMiddleware;
/** The app's CAPTCHA check (its provider's verification of the answer the request carries). */
declare function verifyCaptcha(req: import('express').Request): Promise<boolean>;
