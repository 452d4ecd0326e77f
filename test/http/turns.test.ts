import net from "node:net";
import { describe, expect, it } from "vitest";
import { WriteTurns } from "../../src/http/turns.js";
import { passCounter } from "../helpers/event-loop.js";

describe("WriteTurns", () => {
  it("gives one turn per pass of the event loop, in the order asked", async () => {
    const turns = new WriteTurns();
    const loop = passCounter();
    const seen: { who: number; pass: number }[] = [];
    await Promise.all(
      [1, 2, 3, 4].map(async (who) => {
        await turns.next();
        seen.push({ who, pass: loop.now() });
      }),
    );
    loop.stop();
    expect(seen.map((s) => s.who)).toEqual([1, 2, 3, 4]);
    const passes = seen.map((s) => s.pass);
    expect(new Set(passes).size).toBe(4);
    expect(passes).toEqual([...passes].sort((a, b) => a - b));
    expect(turns.queued).toBe(0);
  });

  it("lets I/O that is ready run between two turns", async () => {
    const turns = new WriteTurns();
    const order: string[] = [];
    let accepted: net.Socket | undefined;
    const server = net.createServer((socket) => {
      accepted = socket;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    while (!accepted) await new Promise((r) => setTimeout(r, 5));
    const read = new Promise<void>((resolve) =>
      client.once("data", () => {
        order.push("read");
        resolve();
      }),
    );
    // The first write sends a reply while it holds the thread; the reply is ready before the second write's turn.
    await Promise.all([
      turns.next().then(() => {
        order.push("write 1");
        accepted!.write("x");
        const until = performance.now() + 30;
        while (performance.now() < until) {} // the write's synchronous work
      }),
      turns.next().then(() => order.push("write 2")),
      read,
    ]);
    client.destroy();
    accepted!.destroy();
    server.close();
    expect(order).toEqual(["write 1", "read", "write 2"]);
  });
});
