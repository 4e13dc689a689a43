import { floodgateTestConfig } from '../../vitest.shared.ts';

export default floodgateTestConfig();
