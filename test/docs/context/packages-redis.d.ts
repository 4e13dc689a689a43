// Names the fragments of packages/redis/README.md take from their surroundings.
declare const nodes: import('ioredis').ClusterNode[];
/** "Your client" in the RedisClientAdapter example: it sends one command. */
declare const my: { send(command: readonly (string | number)[]): Promise<unknown> };
/** Your sentinels' addresses, in the Sentinel examples. */
declare const sentinels: { host: string; port: number }[];
/** Your certificate authority's certificate (PEM), in the TLS examples. */
declare const ca: string;
