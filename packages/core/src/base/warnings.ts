/** A misconfiguration or a bad input noticed at run time; each code is reported once per instance. */
export interface FloodgateWarning {
  /** Stable: `WARN_FLOODGATE_…`, documented in the README under the same name. */
  code: string;
  message: string;
}

/** Stable codes of the run-time warnings. */
export const WarningCode = {
  untrustedForwardedFor: 'WARN_FLOODGATE_UNTRUSTED_X_FORWARDED_FOR',
  permissiveTrustProxy: 'WARN_FLOODGATE_PERMISSIVE_TRUST_PROXY',
  undefinedIp: 'WARN_FLOODGATE_UNDEFINED_IP',
  storeReuse: 'WARN_FLOODGATE_STORE_REUSE',
  doubleCount: 'WARN_FLOODGATE_DOUBLE_COUNT',
  keyFunctionFailed: 'WARN_FLOODGATE_KEY_FUNCTION_FAILED',
  invalidCost: 'WARN_FLOODGATE_INVALID_COST',
  skipFailed: 'WARN_FLOODGATE_SKIP_FAILED',
  badClock: 'WARN_FLOODGATE_BAD_CLOCK',
  connInfoHeader: 'WARN_FLOODGATE_CONN_INFO_HEADER',
  hookFailed: 'WARN_FLOODGATE_HOOK_FAILED',
  algorithmFunctionFailed: 'WARN_FLOODGATE_ALGORITHM_FUNCTION_FAILED',
  priorityFailed: 'WARN_FLOODGATE_PRIORITY_FAILED',
  statusBehind: 'WARN_FLOODGATE_STATUS_BEHIND',
  priorityLate: 'WARN_FLOODGATE_PRIORITY_LATE',
  limitsRejected: 'WARN_FLOODGATE_LIMITS_REJECTED',
} as const;

/**
 * Where warnings go: the user's `onWarning`, called at most once per code, or once per code and
 * `subject` when one is given (a rule, a hook): one report per cause, never one per request.
 */
export type Warn = (code: string, message: string, subject?: string) => void;

/** Reports each code (and subject) at most once for the instance that owns it. */
export function onceWarner(sink: (warning: FloodgateWarning) => void): Warn {
  const seen = new Set<string>();
  return (code, message, subject) => {
    const key = subject === undefined ? code : `${code}\u0000${subject}`;
    if (seen.has(key)) return;
    seen.add(key);
    try {
      sink({ code, message });
    } catch {
      // A logger that throws must not break the request that triggered the warning.
    }
  };
}

export function consoleWarning(warning: FloodgateWarning): void {
  console.warn(`[floodgate] ${warning.code}: ${warning.message}`);
}
