import { floodgateTestConfig } from '../vitest.shared.ts';

export default floodgateTestConfig({
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // Suites start their own redis-server processes and measure latency: one file at a time.
  fileParallelism: false,
});
