// A console that follows a live run for hours allocates steadily (log chunks, parsed lines, frames). V8 answers a
// steady allocation rate by doubling its young generation again and again, up to 128 MiB committed on this machine
// (bench/README.md, dashboard: RSS 95 → 222 MiB in 5 min with the live heap flat at ≈ 33 MiB). Once the young
// generation has reached `maxMiB`, its growth is switched off: scavenges stay short and frequent, RSS stays flat.
// `--max-semi-space-size` cannot be given in NODE_OPTIONS nor changed after start; the growth factor is read at each
// resize, so setting it at run time takes effect.

const MiB = 1048576;

export function capYoungGeneration(maxMiB = 16, checkMs = 5000): () => void {
  // Loaded here, not at start-up (the interactive console calls this after its first frame).
  const v8 = process.getBuiltinModule('node:v8');
  let done = false;
  const check = () => {
    if (done) return;
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (young && young.space_size >= maxMiB * MiB) {
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      done = true;
      clearInterval(timer);
    }
  };
  const timer = setInterval(check, checkMs);
  timer.unref();
  check();
  return () => clearInterval(timer);
}
