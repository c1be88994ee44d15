// `hostname -I`'s answer from disk. The doctor needs the first word of `hostname -I` (the launcher's default proxy
// URL); starting it costs the console a fork and loading node:child_process on the main thread (≈ 5–8 ms between the
// home screen's first frame and its last doctor answer, bench/README.md). What it prints depends only on the binary
// and on each network interface's flags and addresses (getifaddrs: the addresses of interfaces that are up and not
// loopback). So the probe records its answer with a key made of all of that, and the next doctor takes the record
// while the key is the same, as the python3 probe does with sys.path (sitePackages.ts).
//
// The addresses come from os.networkInterfaces(), which is getifaddrs too but leaves out interfaces that are up and
// not running (a bridge without carrier): their addresses cannot be seen from here, so where such an interface
// exists there is no key, and hostname runs. Interface flags come from /sys/class/net, which shows the network
// namespace sysfs was mounted in: it must list the same interfaces as /proc/net/dev (this process's namespace).
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../workspace/atomic.js';
import { doctorRecordFile, readDoctorRecord } from './sitePackages.js';
import { networkInterfaces } from 'node:os';
import path from 'node:path';

/** Where the network state is read (tests point these at their own files). */
export interface NetworkSources {
  /** /sys/class/net: one folder per interface, with `flags`, `operstate`, `ifindex`. */
  sysNet: string;
  /** /proc/net/dev: the interfaces of this process's network namespace. */
  procNetDev: string;
  interfaces: () => NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;
}

export const SYSTEM_NETWORK: NetworkSources = { sysNet: '/sys/class/net', procNetDev: '/proc/net/dev', interfaces: networkInterfaces };

const IFF_UP = 0x1;
const IFF_LOOPBACK = 0x8;
/** The operstates the kernel reports as IFF_RUNNING (netif_oper_up), which libuv requires. */
const RUNNING_STATES = new Set(['up', 'unknown']);

/** A tool's recorded run, in the shape the checks read. */
export interface RecordedAnswer {
  exitCode: number | undefined;
  stdout: string[];
  stderr: string[];
}

interface HostnameRecordFile extends RecordedAnswer {
  key: string;
}

/** Where the record is kept (none without HOME or XDG_CACHE_HOME: nothing is written then). */
export function hostnameRecordFile(env: Record<string, string | undefined>): string | undefined {
  return doctorRecordFile(env, 'hostname-I.json');
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The interface names of /proc/net/dev (two heading lines, then `name: counters`). */
function procInterfaces(file: string): string[] | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  const names: string[] = [];
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon > 0) names.push(line.slice(0, colon).trim());
  }
  return names.sort();
}

/**
 * Everything `hostname -I` run as `binary` prints depends on, as one string; undefined where part of it cannot be
 * seen from here (an interface up and not running, sysfs of another namespace, a file that cannot be read).
 */
export function hostnameKey(binary: string, net: NetworkSources = SYSTEM_NETWORK): string | undefined {
  let real: string;
  let st: { ino: number; size: number; mtimeMs: number };
  let names: string[];
  try {
    real = realpathSync(binary);
    st = statSync(real);
    // Interfaces are links (folders here); the bonding driver adds a plain file, bonding_masters, beside them.
    names = readdirSync(net.sysNet, { withFileTypes: true })
      .filter((e) => !e.isFile())
      .map((e) => e.name)
      .sort();
  } catch {
    return undefined;
  }
  const inNamespace = procInterfaces(net.procNetDev);
  if (!inNamespace || inNamespace.join('\n') !== names.join('\n')) return undefined;
  const links: [name: string, flags: number, operstate: string, ifindex: string][] = [];
  for (const name of names) {
    const flags = Number.parseInt(readText(path.join(net.sysNet, name, 'flags')) ?? '', 16);
    const operstate = readText(path.join(net.sysNet, name, 'operstate'));
    const ifindex = readText(path.join(net.sysNet, name, 'ifindex'));
    if (!Number.isFinite(flags) || operstate === undefined || ifindex === undefined) return undefined;
    if (flags & IFF_UP && !(flags & IFF_LOOPBACK) && !RUNNING_STATES.has(operstate)) return undefined;
    links.push([name, flags, operstate, ifindex]);
  }
  return JSON.stringify([real, st.ino, st.size, st.mtimeMs, links, net.interfaces()]);
}

/** The recorded answer, when it was recorded under `key`. */
export function recordedHostname(file: string | undefined, key: string | undefined): RecordedAnswer | undefined {
  const r = readDoctorRecord<HostnameRecordFile>(file, key);
  if (!r || !Array.isArray(r.stdout) || !Array.isArray(r.stderr)) return undefined;
  return { exitCode: typeof r.exitCode === 'number' ? r.exitCode : undefined, stdout: r.stdout, stderr: r.stderr };
}

/** Records an answer (atomically; a failure to write only costs the next doctor a start of hostname). */
export async function recordHostname(file: string | undefined, key: string | undefined, answer: RecordedAnswer): Promise<void> {
  if (!file || !key) return;
  const body: HostnameRecordFile = { key, exitCode: answer.exitCode, stdout: answer.stdout, stderr: answer.stderr };
  await writeFileAtomic(file, JSON.stringify(body)).catch(() => {});
}
