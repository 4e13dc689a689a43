/** One line of CLUSTER NODES, reduced to what the harness needs. */
export interface NodeLine {
  id: string;
  port: number;
  role: 'master' | 'replica';
  masterId: string | undefined;
  /** Flagged `fail` or `fail?` by the node that printed the line. */
  failing: boolean;
  /** The slot ranges as printed, e.g. `0-5460`: lets two nodes' views be compared. */
  slots: string;
  /** True when this line lists the slot among the node's ranges. */
  owns(slot: number): boolean;
}

/**
 * Parses CLUSTER NODES: `<id> <ip:port@bus> <flags> <master|-> <ping> <pong> <epoch> <link> <slot ranges...>`.
 * Slot entries are single slots or `a-b` ranges; `[slot->-id]` migration markers are ignored.
 */
export function parseClusterNodes(text: string): NodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ');
      const port = Number(address.split('@')[0]?.split(':').pop());
      const ranges = slots
        .filter((entry) => !entry.startsWith('['))
        .map((entry) => entry.split('-').map(Number))
        .map(([from = 0, to = from]) => [from, to] as const);
      const flagList = flags.split(',');
      const role = flagList.includes('master') ? ('master' as const) : ('replica' as const);
      return {
        id,
        port,
        role,
        masterId: master === '-' ? undefined : master,
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        slots: slots.filter((entry) => !entry.startsWith('[')).join(' '),
        owns: (slot: number) => ranges.some(([from, to]) => slot >= from && slot <= to),
      };
    });
}

/** Parses INFO-style `field:value` lines (CLUSTER INFO, INFO replication). */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n').join('\n').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return fields;
}

/** What every healthy node must agree on: each node's role, master and slots, in port order. */
export function topologyOf(lines: readonly NodeLine[]): string {
  return [...lines]
    .sort((a, b) => a.port - b.port)
    .map((line) => `${line.port} ${line.role} ${line.masterId ?? '-'} ${line.slots}`)
    .join('\n');
}
