/** The part of proxy-addr (Express's own, https://github.com/jshttp/proxy-addr) that client-address.ts uses. */
declare module "proxy-addr" {
  import type { IncomingMessage } from "node:http";

  /** Whether the hop `i` (0: the connection's peer) at `address` is a trusted proxy. */
  type Trust = (address: string, i: number) => boolean;
  type Request = Pick<IncomingMessage, "headers"> & { socket: { remoteAddress?: string } };

  function proxyaddr(req: Request, trust: Trust | string | string[]): string;
  namespace proxyaddr {
    /** The peer and the X-Forwarded-For entries from the right, up to and including the first untrusted one. */
    function all(req: Request, trust?: Trust | string | string[]): string[];
    /** A trust function of addresses, CIDR ranges and the names loopback, linklocal, uniquelocal; throws TypeError. */
    function compile(value: string | string[]): Trust;
  }
  export = proxyaddr;
}
