/**
 * Straightforward models of each algorithm in BigInt arithmetic, written from the definitions
 * rather than from the implementation, to compare against on long traces.
 */
export interface RefOutcome {
  allowed: boolean;
  remaining: bigint;
  /** Evaluated only when asked for (and before the next decide): some models search for it. */
  retryAfter: () => bigint;
}

export interface Reference {
  decide(now: bigint, cost: bigint, id: string): RefOutcome;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const ceilDiv = (a: bigint, b: bigint) => (a <= 0n ? 0n : (a + b - 1n) / b);

export function fixedWindowRef(limit: bigint, window: bigint): Reference {
  let index = -1n;
  let count = 0n;
  return {
    decide(now, cost) {
      if (now / window !== index) [index, count] = [now / window, 0n];
      const allowed = count + cost <= limit;
      if (allowed) count += cost;
      return { allowed, remaining: limit - count, retryAfter: () => (allowed ? 0n : (index + 1n) * window - now) };
    },
  };
}

export function slidingLogRef(limit: bigint, window: bigint): Reference {
  const admitted: bigint[] = [];
  let head = 0;
  return {
    decide(now, cost) {
      while (head < admitted.length && (admitted[head] as bigint) <= now - window) head++;
      const count = BigInt(admitted.length - head);
      const allowed = count + cost <= limit;
      if (allowed) for (let i = 0n; i < cost; i++) admitted.push(now);
      const leaving = allowed ? 0n : (admitted[head + Number(count + cost - limit) - 1] as bigint) + window - now;
      return { allowed, remaining: limit - BigInt(admitted.length - head), retryAfter: () => leaving };
    },
  };
}

/** The estimate `prev * (1 - elapsed / window) + curr`, compared as an exact fraction. */
export function slidingWindowRef(limit: bigint, window: bigint): Reference {
  const counts = new Map<bigint, bigint>();
  const estimateFits = (now: bigint, extra: bigint) => {
    const index = now / window;
    const elapsed = now - index * window;
    const prev = counts.get(index - 1n) ?? 0n;
    const curr = (counts.get(index) ?? 0n) + extra;
    return prev * (window - elapsed) + curr * window <= limit * window;
  };
  return {
    decide(now, cost) {
      const index = now / window;
      const allowed = estimateFits(now, cost);
      if (allowed) counts.set(index, (counts.get(index) ?? 0n) + cost);
      counts.delete(index - 2n);
      const elapsed = now - index * window;
      const left =
        limit * window - (counts.get(index - 1n) ?? 0n) * (window - elapsed) - (counts.get(index) ?? 0n) * window;
      // The first instant at which the same request fits, found by walking forward (bounded: 2 windows).
      const retryAfter = () => {
        if (allowed) return 0n;
        let low = now + 1n;
        let high = (index + 2n) * window;
        while (low < high) {
          const mid = (low + high) / 2n;
          if (fitsAt(mid)) high = mid;
          else low = mid + 1n;
        }
        return low - now;
      };
      return { allowed, remaining: left <= 0n ? 0n : left / window, retryAfter };

      // Without new traffic the estimate only falls over time, so the first fit can be bisected.
      function fitsAt(t: bigint): boolean {
        const i = t / window;
        const prev = counts.get(i - 1n) ?? 0n;
        const curr = counts.get(i) ?? 0n;
        return prev * (window - (t - i * window)) + (curr + cost) * window <= limit * window;
      }
    },
  };
}

/**
 * A bucket of `capacity` tokens refilled at `rateNum / rateDen` tokens per second, continuously.
 * One token is 1000 * rateDen units and rateNum units drip per ms (no common factor removed).
 */
export function bucketRef(capacity: bigint, rateNum: bigint, rateDen: bigint): Reference & { level(): bigint } {
  const token = 1000n * rateDen;
  let spent = 0n;
  let at = 0n;
  return {
    level: () => spent,
    decide(now, cost) {
      if (now > at) [spent, at] = [max(0n, spent - (now - at) * rateNum), now];
      const allowed = spent + cost * token <= capacity * token;
      const retryAfter = allowed ? 0n : ceilDiv(spent + cost * token - capacity * token, rateNum);
      if (allowed) spent += cost * token;
      return { allowed, remaining: (capacity * token - spent) / token, retryAfter: () => retryAfter };
    },
  };
}

/**
 * redis-cell's GCRA by virtual scheduling: a theoretical arrival time (TAT), emission interval
 * T = period / rate, tolerance (burst + 1) * T. Times are kept multiplied by `rate`, so exact.
 */
export function gcraRef(rate: bigint, period: bigint, burst: bigint): Reference & { resetAt(): bigint } {
  let tat = 0n; // TAT * rate
  const tolerance = (burst + 1n) * period; // (burst + 1) * T * rate
  return {
    resetAt: () => ceilDiv(tat, rate),
    decide(now, cost) {
      const nowScaled = now * rate;
      const from = max(tat, nowScaled);
      const next = from + cost * period;
      const allowed = next - tolerance <= nowScaled;
      if (allowed) tat = next;
      const held = max(tat, nowScaled);
      return {
        allowed,
        remaining: (nowScaled + tolerance - held) / period,
        retryAfter: () => (allowed ? 0n : ceilDiv(next - tolerance - nowScaled, rate)),
      };
    },
  };
}

export function concurrencyRef(limit: bigint, lease: bigint): Reference & { release(now: bigint, id: string): void } {
  let leases: { id: string; expiresAt: bigint }[] = [];
  const expire = (now: bigint) => {
    leases = leases.filter((held) => held.expiresAt > now);
  };
  return {
    release(now, id) {
      expire(now);
      leases = leases.filter((held) => held.id !== id);
    },
    decide(now, cost, id) {
      expire(now);
      const allowed = BigInt(leases.length) + cost <= limit;
      let retryAfter = 0n;
      if (allowed) for (let i = 0n; i < cost; i++) leases.push({ id, expiresAt: now + lease });
      else {
        const expiries = leases.map((held) => held.expiresAt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        retryAfter = (expiries[Number(BigInt(leases.length) + cost - limit) - 1] as bigint) - now;
      }
      return { allowed, remaining: limit - BigInt(leases.length), retryAfter: () => retryAfter };
    },
  };
}
