// Names the excerpt of examples/hono/src/app.js in examples/hono/README.md takes from the file.
declare const app: import('hono').Hono;
declare const store: import('@floodgate/hono').Store;
declare const login: import('hono').Handler;
declare const authenticate: import('hono').MiddlewareHandler;
