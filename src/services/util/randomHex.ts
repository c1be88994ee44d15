// Random hex for temp-file names and session tags. node:crypto is loaded on the first call, not when the console
// starts: its start-up (OpenSSL) cost ≈ 10 ms of CPU per process, ≈ a quarter of a bare `node -e ''`, and the
// modules that need a random name (atomic writes, the sandbox ledger) are loaded by every command (issue #29).
export function randomHex(bytes: number): string {
  return process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');
}
