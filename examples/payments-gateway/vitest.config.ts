import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import { floodgateTestConfig } from '../../vitest.shared.ts';

// The shared aliases predate @floodgate/prometheus; point it at its source too, so the tests never
// need a build.
export default mergeConfig(floodgateTestConfig(), {
  resolve: {
    alias: [
      {
        find: /^@floodgate\/prometheus$/,
        replacement: fileURLToPath(new URL('../../packages/prometheus/src/index.ts', import.meta.url)),
      },
    ],
  },
});
