// Progress as people read it: a bar, the count and an ETA from the rate so far (one formatter for every long job).
// The ETA comes worded (services/util/format.ts formatAge): the kit lays text out, it does not format durations.

export function progressBar(done: number, total: number, width: number): string {
  const w = Math.max(1, width);
  const frac = total > 0 ? Math.max(0, Math.min(1, done / total)) : 0;
  const full = Math.round(frac * w);
  return '█'.repeat(full) + '░'.repeat(w - full);
}

/** Remaining time at the rate seen since `startedAt` (undefined until something finished). */
export function etaMs(startedAt: number | undefined, doneSinceStart: number, remaining: number, now: number): number | undefined {
  if (startedAt === undefined || doneSinceStart <= 0 || remaining <= 0) return undefined;
  return ((now - startedAt) / doneSinceStart) * remaining;
}

/** `[████░░░░] 12/293 · ETA 1h02m` (the ETA once there is a rate). */
export function progressLine(done: number, total: number, eta: string | undefined, barWidth = 20): string {
  return `[${progressBar(done, total, barWidth)}] ${done}/${total}${eta !== undefined ? ` · ETA ${eta}` : ''}`;
}
