// node bench/headers.mjs: what each standardHeaders mode costs to write, in one process, the modes
// interleaved round by round (the machine is shared; compare the ratios to draft-8, not the ns).
// A real limiter decision (MemoryStore) with one and with two layers, 1,000 distinct clients;
// writeHeaders onto a no-op setter, as the adapters call it.
import { cpus, loadavg } from 'node:os';
import { byHeader, createLimiter, fixedWindow, tokenBucket } from '@floodgate/core';
import { parseHeaderModes, writeHeaders } from '@floodgate/core/http';

const CALLS = 100_000;
const ROUNDS = 9;
const CLIENTS = 1_000;
const modes = {
  'draft-8': parseHeaderModes('bench', { standardHeaders: 'draft-8' }),
  'draft-11': parseHeaderModes('bench', { standardHeaders: 'draft-11' }),
  'draft-11 + pk': parseHeaderModes('bench', {
    standardHeaders: 'draft-11',
    partitionKey: { secret: 'bench partition key secret!' },
  }),
};

async function decisions(layers) {
  const limits = [{ name: 'key', key: byHeader('x-api-key'), algorithm: fixedWindow({ limit: 1e9, window: 60_000 }) }];
  if (layers === 2)
    limits.push({
      name: 'burst',
      key: byHeader('x-api-key'),
      algorithm: tokenBucket({ capacity: 1e6, refillRate: 1000 }),
    });
  const limiter = createLimiter({ limits });
  const out = [];
  for (let i = 0; i < CLIENTS; i++) {
    const headers = { 'x-api-key': `client-${i}` };
    out.push(await limiter.consume({ ip: '127.0.0.1', header: (name) => headers[name], req: {} }));
  }
  return out;
}

let sink = 0;
const set = (_res, _name, value) => {
  sink += value.length;
};

function time(mode, list, now) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) writeHeaders(list[i % CLIENTS], mode, now, null, set);
  return Number(process.hrtime.bigint() - started) / CALLS;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(
  `node bench/headers.mjs — ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg()[0].toFixed(1)}, Node ${process.version}`,
);
for (const layers of [1, 2]) {
  const list = await decisions(layers);
  const now = Date.now();
  const samples = Object.fromEntries(Object.keys(modes).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, mode] of Object.entries(modes)) samples[name].push(time(mode, list, now));
  const base = median(samples['draft-8']);
  for (const name of Object.keys(modes)) {
    const ns = median(samples[name]);
    console.log(
      `${layers} layer(s)  ${name.padEnd(14)} ${ns.toFixed(0).padStart(6)} ns/response  ×${(ns / base).toFixed(2)} of draft-8`,
    );
  }
}
if (sink === 0) console.log('');
