import { createServer } from 'node:net';
import { freePort } from './ports.ts';

/** Redis Cluster puts each node's bus on port + 10000: both must fit below 65536 and be free. */
const BUS_OFFSET = 10_000;

/** `count` distinct loopback ports whose cluster bus port (+10000) is free too. */
export async function clusterPorts(count: number): Promise<number[]> {
  const chosen: number[] = [];
  for (let attempt = 0; attempt < 200 && chosen.length < count; attempt++) {
    const port = await freePort();
    const clashes = chosen.some(
      (other) => other === port || other + BUS_OFFSET === port || other === port + BUS_OFFSET,
    );
    if (port + BUS_OFFSET > 65_535 || clashes || !(await busPortsFree([port]))) continue;
    chosen.push(port);
  }
  if (chosen.length < count)
    throw new Error(`found only ${chosen.length} of ${count} ports with a free cluster bus port`);
  return chosen;
}

/** True when every port's bus port can be listened on right now. */
export async function busPortsFree(ports: readonly number[]): Promise<boolean> {
  const results = await Promise.all(ports.map((port) => canListen(port + BUS_OFFSET)));
  return results.every(Boolean);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
