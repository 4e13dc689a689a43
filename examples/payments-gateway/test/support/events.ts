import type { BreakerChange, DecisionEvent, StoreCallEvent, StoreErrorEvent } from '@floodgate/fastify';

/** What a gateway's limiter reported through its hooks, in order; `hooks` goes to buildApp. */
export function eventLog() {
  const decisions: DecisionEvent[] = [];
  const errors: unknown[] = [];
  const changes: string[] = [];
  const storeCalls: StoreCallEvent[] = [];
  return {
    decisions,
    errors,
    changes,
    storeCalls,
    hooks: {
      onDecision: (event: DecisionEvent) => decisions.push(event),
      onStoreError: (event: StoreErrorEvent) => errors.push(event.error),
      onBreakerChange: (change: BreakerChange) => changes.push(`${change.from}->${change.to}`),
      onStoreCall: (event: StoreCallEvent) => storeCalls.push(event),
    },
    /** `degraded` of each decision since the `from`-th. */
    degradedSince: (from: number) => decisions.slice(from).map((event) => event.decision.degraded),
  };
}
