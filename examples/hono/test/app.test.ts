import { serve } from '@hono/node-server';
import { MemoryStore } from '@floodgate/hono';
import { listening, useExampleServer } from '../../../test/helpers/example-server.ts';
import { createApp } from '../src/app.js';
import { describeExampleApi } from '../../../test/helpers/example-api.ts';

// A frozen clock: nothing refills during the test, so the counts are exact.
const clock = () => 1_700_000_000_001;
const suite = useExampleServer((defer) => {
  const app = createApp({ store: new MemoryStore({ clock }), clock });
  return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }), defer);
});

describeExampleApi('Hono', suite);
