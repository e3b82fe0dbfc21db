// The document's Document Units, held against the app's quota while the pages are read. The
// node's answer takes a round trip (thread → parsing process → node → control plane and back):
// a few milliseconds on a quiet node, tens of them on a busy one, as long as a whole small
// document's parse, during which the thread would sit idle. So the parse goes on meanwhile: a
// refusal stops it at the next page, and it waits for the answer before it returns, so nothing
// is completed (or charged) without the units held.
import type { UnitMeter } from '../kit/types.js';

export class UnitsHeldAhead {
  private answered = false;
  private refusal: unknown = null;
  private readonly answer: Promise<void>;

  constructor(units: UnitMeter | undefined, total: number) {
    const request = units ? units.reserve(total) : Promise.resolve();
    this.answer = request.then(
      () => {
        this.answered = true;
      },
      (err: unknown) => {
        this.answered = true;
        this.refusal = err;
      },
    );
  }

  /**
   * Throws the refusal once it has come. While the answer is pending it lets the thread's event
   * loop turn once (the answer is a message, which a parse made of synchronous steps and
   * resolved promises would never let in).
   */
  async check(): Promise<void> {
    if (!this.answered) await new Promise((resolve) => setImmediate(resolve));
    if (this.refusal) throw this.refusal;
  }

  /** Waits for the answer; throws the refusal. */
  async confirmed(): Promise<void> {
    await this.answer;
    if (this.refusal) throw this.refusal;
  }
}
