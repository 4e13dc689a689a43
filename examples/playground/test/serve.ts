import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

/** Starts a request listener on a free loopback port; `close` ends open connections too. */
export async function serve(listener: { listen: (port: number, host: string, done: () => void) => Server }) {
  let server: Server | undefined;
  await new Promise<void>((resolve) => {
    server = listener.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server!.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server!.closeAllConnections();
        server!.close(() => resolve());
      }),
  };
}
