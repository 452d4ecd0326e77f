/**
 * The turns of large work are bounded by the thread's time per pass of the event loop (http/timed-turns.ts), and
 * pages of long texts are read a few at a time (http/slots.ts). A fake clock stands for the thread's time: each
 * piece of work advances it.
 */
import { describe, expect, it } from "vitest";
import { Slots } from "../../src/http/slots.js";
import { TimedTurns } from "../../src/http/timed-turns.js";
import { passCounter } from "../helpers/event-loop.js";

/** A fake clock and pieces of work that each take `ms` of it, noting the pass they ran in. */
function fakeWork() {
  let now = 0;
  const loop = passCounter();
  const ran: { who: string; pass: number }[] = [];
  const piece = (who: string, ms: number) => () => {
    now += ms;
    ran.push({ who, pass: loop.now() });
    return who;
  };
  return { clock: () => now, piece, ran, stop: loop.stop };
}

/** How many pieces ran in each pass, in the order of the passes. */
const perPass = (ran: { pass: number }[]) => {
  const counts = new Map<number, number>();
  for (const r of ran) counts.set(r.pass, (counts.get(r.pass) ?? 0) + 1);
  return [...counts.values()];
};

describe("TimedTurns", () => {
  it("runs pieces in the order asked until the pass's budget is spent, the rest in the next passes", async () => {
    const w = fakeWork();
    const turns = new TimedTurns(4, w.clock);
    const results = await Promise.all(["a", "b", "c", "d", "e", "f", "g"].map((who) => turns.run(w.piece(who, 1.5))));
    w.stop();
    expect(results).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(w.ran.map((r) => r.who)).toEqual(results);
    // 1.5 ms each against 4 ms: the third piece passes the budget and ends the pass.
    expect(perPass(w.ran)).toEqual([3, 3, 1]);
    expect(turns.queued).toBe(0);
  });

  it("runs one piece per pass however long it is, and many short ones together", async () => {
    const w = fakeWork();
    const turns = new TimedTurns(4, w.clock);
    await Promise.all([
      turns.run(w.piece("long", 50)),
      turns.run(w.piece("next", 50)),
      ...Array.from({ length: 20 }, (_, i) => turns.run(w.piece(`short ${i}`, 0.1))),
    ]);
    w.stop();
    expect(perPass(w.ran)).toEqual([1, 1, 20]);
  });

  it("leaves what a piece asks for once it ran to a later pass, and passes on what a piece threw", async () => {
    const w = fakeWork();
    const turns = new TimedTurns(4, w.clock);
    const chain = async (who: string) => {
      for (let i = 0; i < 3; i++) await turns.run(w.piece(`${who}${i}`, 0));
    };
    const failed = turns.run(() => {
      throw new Error("broken piece");
    });
    await Promise.all([chain("a"), chain("b"), expect(failed).rejects.toThrow("broken piece")]);
    w.stop();
    expect(perPass(w.ran)).toEqual([2, 2, 2]);
  });
});

describe("Slots", () => {
  it("lets `size` holders in at once, the others in the order asked as slots are released", async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const enter = (who: string) =>
      slots.acquire().then((release) => {
        order.push(who);
        releases.set(who, release);
      });
    const entered = ["a", "b", "c", "d"].map(enter);
    await Promise.all(entered.slice(0, 2));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["a", "b"]);
    expect(slots.queued).toBe(2);
    releases.get("b")?.();
    releases.get("b")?.();
    await entered[2];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["a", "b", "c"]);
    expect(slots.busy).toBe(2);
    releases.get("a")?.();
    await entered[3];
    for (const who of ["c", "d"]) releases.get(who)?.();
    expect(slots.busy).toBe(0);
    expect(slots.queued).toBe(0);
  });
});
