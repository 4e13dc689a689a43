import { floodgateTestConfig } from '../../vitest.shared.ts';

// test/*.test-d.ts are type tests: vitest runs them through tsc (the request augmentations and the
// option types a user writes against).
export default floodgateTestConfig({ typecheck: { enabled: true, tsconfig: './tsconfig.json' } });
