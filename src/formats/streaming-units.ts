// Document Units for parsers that count as they stream (messages of a mailbox, statements of
// a script): reserved a step ahead, so a large mailbox does not ask the control plane once
// per message, and exactly when a step ahead does not fit, so an app near its quota is not
// refused a document that fits.
import { ExtractionError, type UnitMeter } from './kit/types.js';

export class StreamingUnits {
  private held = 0;

  constructor(
    private readonly meter: UnitMeter | undefined,
    private readonly step = 64,
  ) {}

  /** The document bills at least `total` units; throws quota_exceeded when they do not fit. */
  async need(total: number): Promise<void> {
    if (!this.meter || total <= this.held) return;
    const ahead = total + this.step - 1;
    try {
      await this.meter.reserve(ahead);
      this.held = ahead;
    } catch (err) {
      if (!(err instanceof ExtractionError) || err.code !== 'quota_exceeded') throw err;
      await this.meter.reserve(total);
      this.held = total;
    }
  }
}
