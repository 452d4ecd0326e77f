/** The stop signals of a start (src/cli/stop-signals.ts), without a process: an emitter stands in for it. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { StartCancelled, StopSignals } from "../../src/cli/stop-signals.js";

describe("StopSignals before the server listens", () => {
  it("says a signal at once, and a second changes nothing", async () => {
    const target = new EventEmitter();
    const said: string[] = [];
    const signals = new StopSignals(target, (line) => said.push(line));
    target.emit("SIGTERM");
    target.emit("SIGINT");
    expect(said).toEqual(["SIGTERM: stopping before the server listens\n"]);
    await expect(signals.checkpoint()).rejects.toBeInstanceOf(StartCancelled);
    expect(said).toHaveLength(1);
  });

  it("says one that came while the program loaded only at a checkpoint, or as soon as another comes", async () => {
    const target = new EventEmitter();
    const said: string[] = [];
    const quiet = new StopSignals(target, (line) => said.push(line), "SIGTERM");
    expect(said).toEqual([]);
    await expect(quiet.checkpoint()).rejects.toBeInstanceOf(StartCancelled);
    expect(said).toEqual(["SIGTERM: stopping before the server listens\n"]);

    // Found by review: a second signal during a long step (migrations) was not said either, until the next step.
    const other = new EventEmitter();
    const heard: string[] = [];
    new StopSignals(other, (line) => heard.push(line), "SIGTERM");
    other.emit("SIGINT");
    expect(heard).toEqual(["SIGTERM: stopping before the server listens\n"]);
  });
});
