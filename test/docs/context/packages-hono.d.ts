// Names the fragments of packages/hono/README.md take from their surroundings.
declare const app: import('hono').Hono;
declare const limits: import('@floodgate/hono').LimitRule<import('hono').Context>[];
declare const store: import('@floodgate/hono').Store;
/** The app's CAPTCHA check (its provider's verification of the answer the request carries). */
declare function verifyCaptcha(c: import('hono').Context): Promise<boolean>;
