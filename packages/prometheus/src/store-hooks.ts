import type { BreakerChange, BreakerState, StoreCallEvent, StoreErrorEvent } from '@floodgate/core';
import type { FloodgateMetrics } from './metrics';

interface Observe {
  observe(value: number): void;
}

interface Inc {
  inc(): void;
}

const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

/** What a `code` label may hold: an error code's usual alphabet, bounded in length. */
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;
/** Distinct codes counted per operation; further ones count as `other`, so the label stays bounded. */
export const MAX_CODES = 32;

/**
 * The onStoreCall hook: the latency in seconds on a child made once per operation and outcome.
 * Operations are the limiter's few store operations (consume, refund, ...), so they are keyed as
 * they come rather than listed here.
 */
export function storeCallHook({ storeCallDuration }: FloodgateMetrics) {
  const byOperation = new Map<string, readonly [error: Observe, ok: Observe]>();
  const pairOf = (operation: string) => {
    const pair = [
      storeCallDuration.labels({ operation, outcome: 'error' }),
      storeCallDuration.labels({ operation, outcome: 'ok' }),
    ] as const;
    byOperation.set(operation, pair);
    return pair;
  };
  pairOf('consume');
  pairOf('refund');
  return function onStoreCall(event: StoreCallEvent): void {
    const pair = byOperation.get(event.operation) ?? pairOf(event.operation);
    pair[event.ok ? 1 : 0].observe(event.ms / 1000);
  };
}

/** The onStoreError hook: counted by the error's `code` (`unknown` when it has none). */
export function storeErrorHook({ storeErrors }: FloodgateMetrics) {
  const byOperation = new Map<string, Map<string, Inc>>();
  return function onStoreError(event: StoreErrorEvent): void {
    const operation: string = event.operation;
    let children = byOperation.get(operation);
    if (children === undefined) {
      children = new Map();
      byOperation.set(operation, children);
    }
    let code = codeOf(event.error);
    let child = children.get(code);
    if (child === undefined) {
      if (children.size >= MAX_CODES) code = 'other';
      child = children.get(code) ?? storeErrors.labels({ operation, code });
      children.set(code, child);
    }
    child.inc();
  };
}

/** The onBreakerChange hook: the new state of the partition's breaker (`''` for a store without partitions). */
export function breakerHook({ breakerState }: FloodgateMetrics) {
  const partitions = new Map<string, { set(value: number): void }>();
  return function onBreakerChange(change: BreakerChange): void {
    const partition = change.partition ?? '';
    let child = partitions.get(partition);
    if (child === undefined) {
      child = breakerState.labels({ partition });
      partitions.set(partition, child);
    }
    child.set(BREAKER_VALUE[change.to]);
  };
}

function codeOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && CODE.test(code) ? code : 'unknown';
}
