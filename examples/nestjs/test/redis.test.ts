import { describeExampleRedis } from '../../../test/helpers/example-api.ts';
import { startApp } from '../src/app.ts';
import { createStore } from '../src/store.js';

describeExampleRedis('NestJS', {
  createStore,
  listen: async (store, defer) => {
    const { app, url } = await startApp({ store: store as never });
    defer(() => app.close());
    return url;
  },
});
