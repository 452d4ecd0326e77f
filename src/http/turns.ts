/**
 * Turns for writes on the one HTTP thread. A write (parse a 5,000-word body, run or send off its transaction, answer)
 * holds the thread for a fraction of a millisecond to a few; when ten arrive together they would run back to back and
 * a GET arriving among them would wait for all ten. Each write instead waits for its turn: one turn per pass of the
 * event loop, given in the loop's check phase, so that between two writes the loop polls the sockets again and the
 * reads that arrived meanwhile are answered first (a GET needs no turn). Turns are given in order; a turn is only a
 * place in line, not a lock: the request may await anything once it has it (a finalization awaits the writer thread,
 * domain/writer.ts, which runs its operations in the order asked).
 */
export class WriteTurns {
  private waiting: (() => void)[] = [];
  private scheduled = false;
  private holds = 0;

  /** `perPass`: how many turns one pass of the event loop gives (a write's: one). */
  constructor(private readonly perPass = 1) {}

  /**
   * Gives no turn until the returned release is called (the checkpointer, for a checkpoint no commit interrupts:
   * see db/checkpoints.ts). Reads go on meanwhile; writes wait in line.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.schedule();
    };
  }

  /** Whether turns are held now. */
  get held(): boolean {
    return this.holds > 0;
  }

  /** Resolves when it is this caller's turn. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Writes waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.holds > 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.holds > 0) return;
      // The writer runs in the microtasks right after this callback; the next turn is in the next pass.
      for (let i = 0; i < this.perPass; i++) this.waiting.shift()?.();
      this.schedule();
    });
  }
}
