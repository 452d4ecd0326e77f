/**
 * Turns of large work on the one HTTP thread, bounded by time. Each piece of work (a row of a page of long texts, a
 * piece of a large answer's JSON) is a synchronous function handed to run(); a pass of the event loop runs the pieces
 * waiting, in the order asked, until `budgetMs` of the thread's time is spent, then leaves the rest to the next pass,
 * so that between two passes the loop polls the sockets and the requests that arrived meanwhile are read and
 * answered. A bound by time, not by count: a burst of large answers cannot fill a pass however large their pieces
 * are. At least one piece runs in each pass, so that large work always moves on. The clock is injected for the tests
 * (test/http/timed-turns.test.ts).
 */

interface Piece {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The queue of large work's pieces, run up to `budgetMs` of the thread per pass of the event loop. */
export class TimedTurns {
  private waiting: Piece[] = [];
  private scheduled = false;

  constructor(
    private readonly budgetMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Runs `work` in a turn of its own; resolves with its result (rejects with what it threw) once it ran. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Pieces waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.pass());
  }

  /** One pass's pieces: those waiting when it began, until the budget is spent (what they queue waits a pass). */
  private pass(): void {
    this.scheduled = false;
    const started = this.clock();
    let left = this.waiting.length;
    do {
      const piece = this.waiting.shift() as Piece;
      try {
        piece.resolve(piece.work());
      } catch (error) {
        piece.reject(error);
      }
    } while (--left > 0 && this.clock() - started < this.budgetMs);
    this.schedule();
  }
}
