// Names the excerpt of examples/fastify/src/app.js in examples/fastify/README.md takes from the file.
declare const app: import('fastify').FastifyInstance;
declare const store: import('@floodgate/fastify').Store;
declare const login: import('fastify').RouteHandlerMethod;
declare const health: import('fastify').RouteHandlerMethod;
