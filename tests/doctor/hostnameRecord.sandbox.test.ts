// `hostname -I`'s record key (src/services/doctor/hostnameRecord.ts) against the real `hostname -I`, in a private
// network namespace (unshare, a sysfs of its own) where generated sequences of interface changes run: veth pairs
// brought up with and without their peer (up and not running), IPv4, global and link-local IPv6 addresses
// added and removed, loopback up and down. After each change the key is taken, hostname -I runs, and the key is
// taken again; the claim the probe relies on is that two moments with the same key printed the same thing. The
// generated sequences must also reach a state where hostname prints an address node does not list (the key is then
// withheld), or the test would not show why it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from '../helpers/property.js';

type Op =
  | { op: 'veth'; n: number }
  | { op: 'up' | 'down'; dev: string }
  | { op: 'addr' | 'deladdr'; dev: string; addr: string };

const DEVICES = ['va0', 'vb0', 'va1', 'vb1', 'lo'];
const ADDRESSES = ['198.51.100.1/24', '198.51.100.2/24', '203.0.113.9/24', '2001:db8::1/64', '2001:db8::2/64', 'fe80::1234/64'];
// Weighted towards states with running interfaces and addresses, where the output has something to say.
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('up' as const), dev: fc.constantFrom(...DEVICES) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('down' as const), dev: fc.constantFrom(...DEVICES) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('addr' as const), dev: fc.constantFrom(...DEVICES), addr: fc.constantFrom(...ADDRESSES) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('deladdr' as const), dev: fc.constantFrom(...DEVICES), addr: fc.constantFrom(...ADDRESSES) }) },
);
const BOTH_PAIRS: Op[] = [{ op: 'veth', n: 0 }, { op: 'veth', n: 1 }];

// One fixed sequence reaches the state that withholds the key: a veth up with an address while its peer is down.
const FIXED: Op[] = [{ op: 'veth', n: 0 }, { op: 'addr', dev: 'va0', addr: '198.51.100.1/24' }, { op: 'up', dev: 'va0' }, { op: 'up', dev: 'vb0' }, { op: 'down', dev: 'vb0' }];
const SEQUENCES: Op[][] = [FIXED, ...fc.sample(fc.array(opArb, { minLength: 6, maxLength: 16 }), { numRuns: 10, seed: 20261206 }).map((ops) => [...BOTH_PAIRS, ...ops])];

// Runs inside the namespace: applies each sequence from a clean state and reports what it saw after each change.
const INNER = `
import { execFileSync, spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { hostnameKey } from ${JSON.stringify(path.resolve('src/services/doctor/hostnameRecord.ts'))};
const hostname = execFileSync('sh', ['-c', 'command -v hostname'], { encoding: 'utf8' }).trim();
const ip = (...a) => spawnSync('ip', a, { encoding: 'utf8' }).status === 0;
const seen = [];
for (const seq of JSON.parse(process.argv[process.argv.length - 1])) {
  for (const d of ['va0', 'va1']) ip('link', 'del', d);
  ip('link', 'set', 'lo', 'up');
  for (const o of seq) {
    if (o.op === 'veth') ip('link', 'add', 'va' + o.n, 'type', 'veth', 'peer', 'name', 'vb' + o.n);
    else if (o.op === 'up' || o.op === 'down') ip('link', 'set', o.dev, o.op);
    else ip('addr', o.op === 'addr' ? 'add' : 'del', o.addr, 'dev', o.dev);
    const before = hostnameKey(hostname);
    const r = spawnSync(hostname, ['-I'], { encoding: 'utf8' });
    const after = hostnameKey(hostname);
    const listed = Object.values(networkInterfaces()).flat().map((a) => a.address);
    seen.push({ key: before === after ? before ?? null : 'changed', out: [r.status, r.stdout], listed });
  }
}
process.stdout.write(JSON.stringify(seen));
`;

function namespaceSupport(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root for a private network namespace';
  for (const tool of ['unshare', 'ip', 'hostname']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  const r = spawnSync('unshare', ['-nm', 'sh', '-c', 'mount -t sysfs sysfs /sys && ip link add t0 type veth peer name t1'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `cannot make a network namespace here: ${r.stderr.trim()}`;
}

test('same key, same `hostname -I` output, over generated interface changes in a private network namespace', { skip: namespaceSupport() ?? false }, () => {
  const inner = `mount -t sysfs sysfs /sys && exec "$0" --import tsx --input-type=module -e "$1" "$2"`;
  const r = spawnSync('unshare', ['-nm', 'sh', '-c', inner, process.execPath, INNER, JSON.stringify(SEQUENCES)], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const seen = JSON.parse(r.stdout) as { key: string | null; out: [number, string]; listed: string[] }[];
  const byKey = new Map<string, [number, string]>();
  for (const s of seen) {
    if (s.key === null || s.key === 'changed') continue;
    const earlier = byKey.get(s.key);
    if (earlier) assert.deepEqual(s.out, earlier, `one key, two outputs:\n${s.key}`);
    else byKey.set(s.key, s.out);
  }
  assert.ok(byKey.size >= 10, `${byKey.size} distinct keys seen: the sequences should reach more states`);
  // The state that makes the key necessary to withhold: hostname prints an address node does not list.
  const hidden = seen.filter((s) => s.key === null && s.out[1].trim().split(/\s+/).some((a) => a && !s.listed.includes(a)));
  assert.ok(hidden.length > 0, 'no state where hostname -I printed an address node does not list');
  // And every keyed state's output names only addresses node lists.
  for (const s of seen) if (s.key !== null && s.key !== 'changed') for (const a of s.out[1].trim().split(/\s+/).filter(Boolean)) assert.ok(s.listed.includes(a), `${a} printed, not listed`);
});
