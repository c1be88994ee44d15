// `hostname -I`'s recorded answer (src/services/doctor/hostnameRecord.ts): the key covers what its output depends on
// (the binary; each interface's flags, state and addresses) and is withheld where part of that cannot be seen (an
// interface up and not running, whose addresses os.networkInterfaces() leaves out; sysfs of another namespace); the
// probe starts hostname once, then answers from the record while the key holds, and starts it again when it changes.
// tests/doctor/hostnameRecord.sandbox.test.ts holds the key to the real hostname in a private network namespace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { NetworkInterfaceInfo } from 'node:os';
import { hostnameKey, hostnameRecordFile, recordHostname, recordedHostname, type NetworkSources } from '../../src/services/doctor/hostnameRecord.js';
import { DoctorProbe } from '../../src/services/doctor/probe.js';
import { commandLog } from '../../src/services/process/commandLog.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { fakeDressageCheckout, removeDir, tempDir } from '../helpers/workspace.js';

interface Link {
  flags: number;
  operstate: string;
  ifindex: number;
  addresses: string[];
}

/** A network as /sys/class/net, /proc/net/dev and os.networkInterfaces() show it (running interfaces only there). */
async function fakeNetwork(dir: string, links: Record<string, Link>, opts: { procNames?: string[] } = {}): Promise<NetworkSources> {
  const sysNet = path.join(dir, 'sys-class-net');
  await mkdir(sysNet, { recursive: true });
  for (const [name, l] of Object.entries(links)) {
    await mkdir(path.join(sysNet, name), { recursive: true });
    await writeFile(path.join(sysNet, name, 'flags'), `0x${l.flags.toString(16)}\n`);
    await writeFile(path.join(sysNet, name, 'operstate'), `${l.operstate}\n`);
    await writeFile(path.join(sysNet, name, 'ifindex'), `${l.ifindex}\n`);
  }
  const procNetDev = path.join(dir, 'proc-net-dev');
  const names = opts.procNames ?? Object.keys(links);
  await writeFile(procNetDev, ['Inter-|   Receive', ' face |bytes', ...names.map((n) => `${n.padStart(6)}: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0`)].join('\n') + '\n');
  const interfaces = () => {
    const out: NodeJS.Dict<NetworkInterfaceInfo[]> = {};
    for (const [name, l] of Object.entries(links)) {
      if (!(l.flags & 1) || !['up', 'unknown'].includes(l.operstate)) continue;
      out[name] = l.addresses.map((a) => ({ address: a, netmask: '255.255.255.0', family: a.includes(':') ? 'IPv6' : 'IPv4', mac: '02:00:00:00:00:01', internal: name === 'lo', cidr: `${a}/24`, ...(a.includes(':') ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo);
    }
    return out;
  };
  return { sysNet, procNetDev, interfaces };
}

const LO: Link = { flags: 0x9, operstate: 'unknown', ifindex: 1, addresses: ['127.0.0.1'] };
const ETH0: Link = { flags: 0x1003, operstate: 'up', ifindex: 2, addresses: ['192.0.2.2'] };

async function executable(dir: string, name: string, body: string): Promise<string> {
  const f = path.join(dir, name);
  await writeFile(f, `#!/bin/sh\n${body}\n`);
  await chmod(f, 0o755);
  return f;
}

test('the key changes with an address, a flag, an interface or the binary, and is withheld where hostname sees more than node', async () => {
  const dir = await tempDir('swegym-hostname-key-');
  try {
    const bin = await executable(dir, 'hostname', 'echo "192.0.2.2 "');
    const key = async (links: Record<string, Link>, opts?: { procNames?: string[] }, sub = 'n') => hostnameKey(bin, await fakeNetwork(path.join(dir, sub + Math.random().toString(36).slice(2)), links, opts));
    const base = await key({ lo: LO, eth0: ETH0 });
    assert.ok(base, 'a plain network has a key');
    assert.equal(await key({ lo: LO, eth0: ETH0 }), base, 'the same network, the same key');
    assert.notEqual(await key({ lo: LO, eth0: { ...ETH0, addresses: ['192.0.2.3'] } }), base, 'another address');
    assert.notEqual(await key({ lo: LO, eth0: { ...ETH0, addresses: ['192.0.2.2', '2001:db8::2'] } }), base, 'one more address');
    assert.notEqual(await key({ lo: LO, eth0: { ...ETH0, flags: 0x1002, operstate: 'down' } }), base, 'the interface went down');
    assert.notEqual(await key({ lo: LO, eth0: ETH0, eth1: { flags: 0x1002, operstate: 'down', ifindex: 3, addresses: ['198.51.100.1'] } }), base, 'another interface, down');
    // Up and not running (a bridge or veth without carrier): hostname -I prints its addresses, node does not list them.
    assert.equal(await key({ lo: LO, eth0: ETH0, docker0: { flags: 0x1003, operstate: 'down', ifindex: 3, addresses: ['172.17.0.1'] } }), undefined);
    assert.equal(await key({ lo: LO, eth0: { ...ETH0, operstate: 'lowerlayerdown' } }), undefined);
    assert.equal(await key({ lo: LO, eth0: { ...ETH0, operstate: 'dormant' } }), undefined);
    // Loopback is never printed, running or not.
    assert.ok(await key({ lo: { ...LO, operstate: 'down' }, eth0: ETH0 }));
    // sysfs of another network namespace: the interfaces differ from /proc/net/dev's.
    assert.equal(await key({ lo: LO, eth0: ETH0 }, { procNames: ['lo', 'eth0', 'veth9'] }), undefined);
    // The bonding driver's control file beside the interfaces is no interface.
    const bonded = await fakeNetwork(path.join(dir, 'bonded'), { lo: LO, eth0: ETH0 });
    await writeFile(path.join(bonded.sysNet, 'bonding_masters'), '\n');
    assert.equal(hostnameKey(bin, bonded), base, 'bonding_masters is not an interface');
    // Another binary at the same path.
    const later = new Date(Date.now() + 60_000);
    await utimes(bin, later, later);
    assert.notEqual(await key({ lo: LO, eth0: ETH0 }), base, 'the binary changed');
  } finally {
    await removeDir(dir);
  }
});

test('the record: written atomically, read back only under its key, bad files read as none', async () => {
  const dir = await tempDir('swegym-hostname-record-');
  try {
    const file = hostnameRecordFile({ XDG_CACHE_HOME: dir }) as string;
    assert.equal(file, path.join(dir, 'swegym-console', 'hostname-I.json'));
    assert.equal(hostnameRecordFile({}), undefined, 'no HOME, no record');
    assert.equal(recordedHostname(file, 'k'), undefined, 'nothing recorded yet');
    await recordHostname(file, 'k', { exitCode: 0, stdout: ['192.0.2.2 2001:db8::2 '], stderr: [] });
    assert.deepEqual(recordedHostname(file, 'k'), { exitCode: 0, stdout: ['192.0.2.2 2001:db8::2 '], stderr: [] });
    assert.equal(recordedHostname(file, 'other'), undefined);
    assert.equal(recordedHostname(file, undefined), undefined);
    await writeFile(file, '{"key":"k","stdout":');
    assert.equal(recordedHostname(file, 'k'), undefined, 'a torn file is no record');
  } finally {
    await removeDir(dir);
  }
});

test('the probe starts hostname once, answers from the record while the key holds, and starts it again when it changes', async () => {
  const ws = await fakeDressageCheckout();
  const dir = await tempDir('swegym-hostname-probe-');
  try {
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await executable(bin, 'python3', `echo '{"python": "3.11.7"}'`);
    await executable(bin, 'hostname', '[ "$1" = -I ] && echo "203.0.113.7 10.0.0.2 " || exit 1');
    const env = { PATH: bin, XDG_CACHE_HOME: path.join(dir, 'cache') };
    let links: Record<string, Link> = { lo: LO, eth0: { ...ETH0, addresses: ['203.0.113.7'] } };
    const probeOnce = async () => {
      const before = commandLog.entries().at(-1)?.id ?? 0;
      const probe = new DoctorProbe({ paths: recipePaths(ws), env, provider: 'e2b', timeoutMs: 60_000 }, await fakeNetwork(path.join(dir, `net${before}`), links));
      const answer = await probe.tool('hostname');
      await probe.settled;
      const started = commandLog.entries().filter((e) => e.id > before && e.argv[0] === 'hostname').length;
      return { stdout: answer?.stdout, exitCode: answer?.exitCode, started, fromRecord: probe.answeredFromRecord.includes('hostname') };
    };
    const first = await probeOnce();
    assert.deepEqual(first, { stdout: ['203.0.113.7 10.0.0.2 '], exitCode: 0, started: 1, fromRecord: false });
    const second = await probeOnce();
    assert.deepEqual(second, { stdout: ['203.0.113.7 10.0.0.2 '], exitCode: 0, started: 0, fromRecord: true });
    // The address changed: hostname runs again (and prints what it now prints).
    await executable(bin, 'hostname', '[ "$1" = -I ] && echo "203.0.113.8 " || exit 1');
    links = { lo: LO, eth0: { ...ETH0, addresses: ['203.0.113.8'] } };
    assert.deepEqual(await probeOnce(), { stdout: ['203.0.113.8 '], exitCode: 0, started: 1, fromRecord: false });
    assert.deepEqual(await probeOnce(), { stdout: ['203.0.113.8 '], exitCode: 0, started: 0, fromRecord: true });
    // A network with an interface up and not running: no key, so hostname runs every time.
    links = { ...links, br0: { flags: 0x1003, operstate: 'down', ifindex: 5, addresses: ['172.17.0.1'] } };
    assert.equal((await probeOnce()).started, 1);
    assert.equal((await probeOnce()).started, 1);
  } finally {
    await removeDir(ws);
    await removeDir(dir);
  }
});
