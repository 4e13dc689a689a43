import type { AddressInfo } from 'node:net';
import { describeExampleRedis } from '../../../test/helpers/example-api.ts';
import { buildApp } from '../src/app.js';
import { createStore } from '../src/store.js';

describeExampleRedis('Fastify', {
  createStore,
  listen: async (store, defer) => {
    const app = await buildApp({ store });
    defer(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  },
  // /login's own limit counts under a prefix the plugin derives from its 'api'.
  loginKeys: 'api.r*:ip:*',
});
