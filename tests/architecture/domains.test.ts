// Every domain has the same shape: a folder of src/services that runs a job (jobEmitter), has a controller or
// creates a store exports one definition from its domain.ts (defineDomain: name, jobs bound to the registry's
// dependencies, the console's half, projections), and the registry (src/app/registry.ts) lists it under its name.
// Screens hold no controller: their actions are the domains'.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { DOMAINS, createDomainDeps, type DomainName } from '../../src/app/registry.js';

const SERVICES = fileURLToPath(new URL('../../src/services/', import.meta.url));
const SCREENS = fileURLToPath(new URL('../../src/screens/', import.meta.url));

/** Folders every domain uses: the job runner, the definition's contract, what the registry hands the screens. */
const SHARED = ['jobs', 'domain', 'registry'];

const code = (file: string) => readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');

/** The folders of src/services that are a domain: a job, a controller or a store of their own. */
function domainFolders(): { folder: string; why: string }[] {
  const out: { folder: string; why: string }[] = [];
  for (const entry of readdirSync(SERVICES, { withFileTypes: true })) {
    // The job runner itself and the registry's contracts are not domains.
    if (!entry.isDirectory() || SHARED.includes(entry.name)) continue;
    const dir = path.join(SERVICES, entry.name);
    const files = readdirSync(dir).filter((f) => /\.tsx?$/.test(f) && f !== 'domain.ts');
    const why =
      files.find((f) => f === 'controller.ts') ??
      files.find((f) => /Job\.ts$/.test(f)) ??
      files.find((f) => /\bjobEmitter\b/.test(code(path.join(dir, f)))) ??
      files.find((f) => /\bcreate[A-Z]\w*Store\(/.test(code(path.join(dir, f))));
    if (why) out.push({ folder: entry.name, why });
  }
  return out;
}

test('each domain folder of src/services exports one definition from domain.ts, and the registry lists it', async () => {
  const folders = domainFolders();
  assert.ok(folders.length >= 9, `found ${folders.map((f) => f.folder).join(', ')}`);
  const registered = new Map<string, unknown>();
  for (const [name, load] of Object.entries(DOMAINS)) registered.set(name, await load());
  const problems: string[] = [];
  for (const { folder, why } of folders) {
    const file = path.join(SERVICES, folder, 'domain.ts');
    if (!existsSync(file)) {
      problems.push(`services/${folder} (${why}) has no domain.ts exporting its definition`);
      continue;
    }
    const mod = (await import(file)) as Record<string, unknown>;
    const defs = Object.entries(mod).filter(([, v]) => typeof v === 'object' && v !== null && 'jobs' in v && 'projections' in v);
    if (defs.length !== 1) {
      problems.push(`services/${folder}/domain.ts exports ${defs.length} definitions (one, made with defineDomain)`);
      continue;
    }
    const [exportName, def] = defs[0] as [string, { name: unknown; jobs: unknown; create?: unknown; projections: unknown }];
    if (exportName !== `${String(def.name)}Domain`) problems.push(`services/${folder}/domain.ts: ${exportName} should be named ${String(def.name)}Domain`);
    if (typeof def.name !== 'string') problems.push(`${exportName}: no name`);
    if (typeof def.jobs !== 'function') problems.push(`${exportName}: jobs is not a function of the dependencies`);
    if (def.create !== undefined && typeof def.create !== 'function') problems.push(`${exportName}: create is not a function`);
    if (typeof def.projections !== 'object' || def.projections === null) problems.push(`${exportName}: projections is not an object`);
    if (!Object.isFrozen(def)) problems.push(`${exportName}: not made with defineDomain (frozen)`);
    if (registered.get(def.name as string) !== def) problems.push(`${exportName}: src/app/registry.ts DOMAINS does not list it as '${String(def.name)}'`);
  }
  // And the other way: every registered domain is one of the folders' definitions.
  for (const [name, def] of registered) {
    const withDefinition = readdirSync(SERVICES).filter((folder) => existsSync(path.join(SERVICES, folder, 'domain.ts')));
    if (!withDefinition.some((folder) => readFileSync(path.join(SERVICES, folder, 'domain.ts'), 'utf8').includes(`name: '${name}'`))) {
      problems.push(`DOMAINS.${name} is not the definition of a domain folder`);
    }
    assert.equal((def as { name: string }).name, name);
  }
  assert.deepEqual(problems, []);
});

test("a domain's jobs are bound to the registry's dependencies: building them starts nothing", async () => {
  const deps = createDomainDeps({ workspace: '/nonexistent/swegym-domains-test', provider: 'local', debug: false, color: false, json: false }, { env: {} });
  assert.deepEqual(deps.profile, { kind: 'real' });
  for (const name of Object.keys(DOMAINS) as DomainName[]) {
    const def = await DOMAINS[name]();
    const jobs = def.jobs(deps) as Record<string, unknown>;
    const names = Object.keys(jobs);
    assert.ok(names.length > 0, `${name} has no jobs`);
    for (const job of names) assert.equal(typeof jobs[job], 'function', `${name}.jobs.${job}`);
  }
});

test('no screen file holds a controller: screens are selectors and the domains’ controller actions', () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name)) {
        const rel = path.relative(SCREENS, file);
        if (/(Actions|[Cc]ontroller)\.tsx?$/.test(entry.name)) offenders.push(`${rel}: a controller file among the screens (move it to services/<domain>/controller.ts)`);
        if (/\bclass\s+\w*Controller\b/.test(code(file))) offenders.push(`${rel}: declares a controller class`);
      }
    }
  };
  walk(SCREENS);
  assert.deepEqual(offenders, []);
});
