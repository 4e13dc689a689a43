import { describeExampleRedis } from '../../../test/helpers/example-api.ts';
import { listening } from '../../../test/helpers/example-server.ts';
import { createApp } from '../src/app.js';
import { createStore } from '../src/store.js';

describeExampleRedis('Koa', {
  createStore,
  listen: (store, defer) => listening(createApp({ store }).listen(0, '127.0.0.1'), defer),
});
