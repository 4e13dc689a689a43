// Names the fragments of packages/cloudflare/README.md take from the Worker (src/index.ts) it shows first.
declare let limiter: import('hono').MiddlewareHandler | undefined;
declare const c: import('hono').Context<{ Bindings: { FLOODGATE: import('@floodgate/cloudflare').LimiterNamespace } }>;
declare const rateLimiter: typeof import('@floodgate/hono').rateLimiter;
declare const DurableObjectStore: typeof import('@floodgate/cloudflare').DurableObjectStore;
declare const byIp: typeof import('@floodgate/hono').byIp;
declare const slidingWindow: typeof import('@floodgate/hono').slidingWindow;
declare const fixedWindow: typeof import('@floodgate/hono').fixedWindow;
declare const getConnInfo: typeof import('hono/cloudflare-workers').getConnInfo;
