// A dependency with a fixed capacity: `workers` calls at once, `serviceMs` each, the rest wait in a
// FIFO queue (as a connection pool in front of a database does), so latency grows with the queue.
// Each worker's next call is due `serviceMs` after its previous one was due, not after its timer
// fired: on a busy machine a late timer then costs latency, not capacity, which stays workers/serviceMs.
export function dependency({ workers, serviceMs }) {
  const state = { serviceMs };
  const freeAt = new Array(workers).fill(0);
  const queue = [];
  let busy = 0;
  const start = (worker, resolve) => {
    busy++;
    const due = Math.max(performance.now(), freeAt[worker]) + state.serviceMs;
    freeAt[worker] = due;
    setTimeout(() => {
      busy--;
      resolve();
      const next = queue.shift();
      if (next !== undefined) start(worker, next);
      else idle.push(worker);
    }, due - performance.now());
  };
  const idle = Array.from({ length: workers }, (_, i) => i);
  return {
    state,
    call: () =>
      new Promise((resolve) => {
        const worker = idle.pop();
        if (worker !== undefined) start(worker, resolve);
        else queue.push(resolve);
      }),
    get queued() {
      return queue.length;
    },
    get busy() {
      return busy;
    },
  };
}
