// The app decorates each request with the user its authentication hook found (a module, so that it
// augments fastify's types rather than replacing them).
export {};

declare module 'fastify' {
  interface FastifyRequest {
    user?: { id: string } | undefined;
  }
}
