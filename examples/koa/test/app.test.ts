import { MemoryStore } from '@floodgate/koa';
import { describeExampleApi } from '../../../test/helpers/example-api.ts';
import { listening, useExampleServer } from '../../../test/helpers/example-server.ts';
import { createApp } from '../src/app.js';

// A frozen clock: nothing refills during the test, so the counts are exact.
const clock = () => 1_700_000_000_001;
const suite = useExampleServer((defer) =>
  listening(createApp({ store: new MemoryStore({ clock }), clock }).listen(0, '127.0.0.1'), defer),
);

describeExampleApi('Koa', suite);
