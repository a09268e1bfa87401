/**
 * The timers of a background check: once `firstDelayMs` after start (so a start after ready pays
 * nothing for it before tools/list answers), then every `everyMs`. They never keep the process
 * alive. Shared by the nightly scheduler and the saga watchdog.
 */
export class PeriodicCheck {
  private first: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly check: () => void) {}

  /** Whether its timers are set (started and not stopped). */
  get active(): boolean {
    return this.first !== null || this.timer !== null;
  }

  /** (Re)start: the first check after `firstDelayMs`, then one every `everyMs`. */
  start(firstDelayMs: number, everyMs: number): void {
    this.stop();
    this.first = setTimeout(() => {
      this.first = null;
      this.timer = setInterval(this.check, everyMs);
      this.timer.unref();
      this.check();
    }, firstDelayMs);
    this.first.unref();
  }

  stop(): void {
    if (this.first) clearTimeout(this.first);
    if (this.timer) clearInterval(this.timer);
    this.first = null;
    this.timer = null;
  }
}
