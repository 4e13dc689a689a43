import { serve } from '@hono/node-server';
import { describeExampleRedis } from '../../../test/helpers/example-api.ts';
import { listening } from '../../../test/helpers/example-server.ts';
import { createApp } from '../src/app.js';
import { createStore } from '../src/store.js';

describeExampleRedis('Hono', {
  createStore,
  listen: (store, defer) => {
    const app = createApp({ store });
    return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }), defer);
  },
});
