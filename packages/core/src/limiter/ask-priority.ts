import { show } from '../base/errors';
import { WarningCode } from '../base/warnings';
import type { Warn } from '../base/warnings';
import type { Priority, PriorityFunction } from './types';

/**
 * What a priority function answers for `req`. One that throws makes the request normal: it cannot
 * use the reserve (a layer's) nor the adaptive layer's critical share. Reported as a warning.
 */
export function askPriority<Req>(priority: PriorityFunction<Req>, req: Req, warn: Warn): Priority | undefined {
  try {
    return priority(req);
  } catch (error) {
    warn(
      WarningCode.priorityFailed,
      `the priority function threw ${error instanceof Error ? error.message : show(error)}; such requests are normal (they cannot use the reserve)`,
    );
    return undefined;
  }
}
