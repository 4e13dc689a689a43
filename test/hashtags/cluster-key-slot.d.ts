declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, as ioredis computes it for routing. */
  export default function calculateSlot(key: string | Uint8Array): number;
}
