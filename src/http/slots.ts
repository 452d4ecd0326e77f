/**
 * A bound on how many of one kind of work run at once: acquire() resolves when one of `size` slots is free (in the
 * order asked) with the function that frees it again. Large pages of long texts take one while they are read and
 * while their JSON is written (http/json-pieces.ts largeSlots), so that a burst of them is made a few at a time
 * instead of all together, each holding its rows in memory (test/http/timed-turns.test.ts).
 */
export class Slots {
  private used = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves with the slot's release once one is free; releasing twice frees it once. */
  async acquire(): Promise<() => void> {
    if (this.used < this.size) this.used++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, or is freed.
      if (next) next();
      else this.used--;
    };
  }

  /** Slots in use now, and callers waiting for one. */
  get busy(): number {
    return this.used;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
