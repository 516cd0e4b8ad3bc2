/**
 * A progress bar on stderr. On a terminal it redraws one line in place; otherwise (CI logs, pipes) it prints a
 * plain line every 10% so logs stay readable and free of carriage returns. Here in core/ because two runtimes show
 * it: the CLI (`kfek send`, `replay`, `backfill`) and the local runner (`npm start`).
 */

/** The part of a stream the bar writes to (`process.stderr` fits). */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressBarOptions {
  readonly total: number;
  readonly label: string;
  /** Injected by tests. @default Date.now */
  readonly now?: () => number;
}

export class ProgressBar {
  private done = 0;
  private note = '';
  private lastDecile = -1;
  private readonly startedAt: number;
  private readonly now: () => number;

  constructor(
    private readonly out: ProgressOutput,
    private readonly options: ProgressBarOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Sets the count of finished items and redraws. */
  update(done: number, note = ''): void {
    this.done = Math.min(done, this.options.total);
    this.note = note;
    this.render();
  }

  /** Ends the line (terminal) or prints the final state (not a terminal). */
  finish(): void {
    if (this.out.isTTY === true) {
      this.render();
      this.out.write('\n');
    } else if (this.lastDecile < 10) {
      this.lastDecile = 10;
      this.out.write(`${this.options.label} ${this.line()}\n`);
    }
  }

  private render(): void {
    if (this.out.isTTY === true) {
      const width = Math.max(10, Math.min(40, (this.out.columns ?? 80) - 60));
      const total = Math.max(1, this.options.total);
      const filled = Math.round((this.done / total) * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
      // \r returns to the line start, \x1b[K clears what a longer previous line left behind.
      this.out.write(`\r${this.options.label} ${bar} ${this.line()}\x1b[K`);
      return;
    }
    const decile = this.options.total === 0 ? 10 : Math.floor((this.done / this.options.total) * 10);
    if (decile > this.lastDecile) {
      this.lastDecile = decile;
      this.out.write(`${this.options.label} ${this.line()}\n`);
    }
  }

  private line(): string {
    const total = this.options.total;
    const percent = total === 0 ? 100 : Math.floor((this.done / total) * 100);
    const seconds = (this.now() - this.startedAt) / 1000;
    const rate = seconds > 0 ? Math.round(this.done / seconds) : 0;
    return `${this.done}/${total} ${percent}% ${rate}/s${this.note !== '' ? ` ${this.note}` : ''}`;
  }
}
