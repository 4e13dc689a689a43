// Names the fragments of packages/fastify/README.md take from their surroundings.
declare const app: import('fastify').FastifyInstance;
/** The app's own route handlers. */
declare const search: import('fastify').RouteHandlerMethod;
declare const health: import('fastify').RouteHandlerMethod;
declare const limits: import('@floodgate/fastify').LimitRule<import('fastify').FastifyRequest>[];
declare const store: import('@floodgate/fastify').Store;
/** The app's CAPTCHA check (its provider's verification of the answer the request carries). */
declare function verifyCaptcha(request: import('fastify').FastifyRequest): Promise<boolean>;
