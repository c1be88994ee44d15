// Names the likely cause of a template build or smoke failure, from the error kind and message (the failure
// modes operators hit, e2b-sdk reference §7, recipe §8). Messages are redacted before they are kept.
import { SandboxError } from '../sandbox/types.js';
import { redact } from '../secrets.js';
import { BLACKBOX_PORT } from '../recipe.js';

export interface Diagnosis {
  /** Short tag for tables and JSON: pull_denied, alias_taken, … */
  code: string;
  /** One line: the likely cause and what to do. */
  hint: string;
}

const RULES: { code: string; test: RegExp; hint: string }[] = [
  {
    code: 'pull_denied',
    test: /access denied|permission to pull|pull access denied|manifest unknown|repository does not exist|image .*not found|failed to pull|unauthorized: .*registry/i,
    hint: 'image pull denied: E2B could not pull the task image; check the image name in data/swegym-images.txt and that the registry is public or credentials are set',
  },
  {
    code: 'alias_taken',
    test: /alias .*(already taken|already used|is taken)|already (taken|used)/i,
    hint: 'alias taken: another project or team owns this template name; choose another prefix (--prefix)',
  },
  { code: 'invalid_name', test: /invalid alias|invalid template name/i, hint: 'invalid template name: E2B refused the alias; use a simpler --prefix' },
  {
    code: 'artifact_missing',
    test: /missing sandbox artifact|copy source not found/i,
    hint: 'artifacts missing: build them first (swegym-console artifacts build) with the same versions as the templates',
  },
  {
    code: 'no_start_command',
    test: /port is not open|connection refused|couldn't connect|failed to connect|ready ?cmd|readiness|wait_for_url|waitForURL|health/i,
    hint: `the Blackbox Server did not answer on ${BLACKBOX_PORT}: the start command is missing or failed (look at /tmp/blackbox-server.log in the template)`,
  },
  {
    code: 'claude_binary',
    test: /claude(: | --version).*(not found|cannot execute|exec format)|exec format error/i,
    hint: 'the Claude Code binary does not run in this image (wrong architecture or a damaged artifact); rebuild the artifacts on Linux x86_64',
  },
  {
    code: 'not_debian',
    test: /apt-get: (command )?not found|only debian|multi-stage/i,
    hint: 'the base image is not Debian-based; E2B templates need apt-get',
  },
  { code: 'build_timeout', test: /maximum build time|polling timed out|deadline ?exceeded/i, hint: 'the build hit E2B\'s 1 h limit; retry (cached layers make it faster)' },
  { code: 'envd', test: /failed to init new envd|syncing took too long|resume sandbox/i, hint: 'E2B failed to start the build sandbox (a transient E2B problem); retry the build' },
];

export function diagnose(err: unknown): Diagnosis {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof SandboxError) {
    if (err.kind === 'unauthorized') return { code: 'unauthorized', hint: 'E2B refused the API key: check E2B_API_KEY (templates use E2B_API_KEY, training DRESSAGE_E2B_API_KEY)' };
    if (err.kind === 'rate_limited') {
      if (/concurrent (E2B )?sandboxes/i.test(message)) {
        return { code: 'sandbox_limit', hint: "E2B's limit of concurrent sandboxes is reached (Hobby 20, Pro 100): lower --concurrency, or kill leftovers (swegym-console sandboxes list, sandboxes kill --all-console)" };
      }
      if (/build/i.test(message)) return { code: 'rate_limited', hint: 'E2B rate limit (concurrent template builds are capped at 20 on Hobby/Pro); lower --concurrency' };
      return { code: 'rate_limited', hint: 'E2B rate limit reached (sandbox creation: Hobby 1/s, Pro 5/s); lower --concurrency or retry later' };
    }
    if (err.kind === 'service_busy') return { code: 'service_busy', hint: 'E2B is busy (503); retry later' };
    if (err.kind === 'network') {
      if (err.status === 502) return { code: 'network', hint: "E2B's sandbox proxy answered 502 (the sandbox stopped answering, or expired); retry the smoke" };
      return { code: 'network', hint: 'network error talking to E2B; check connectivity and retry' };
    }
    if (err.kind === 'cancelled') return { code: 'cancelled', hint: 'cancelled' };
  }
  for (const rule of RULES) if (rule.test.test(message)) return { code: rule.code, hint: rule.hint };
  if (err instanceof SandboxError && err.kind === 'not_found') return { code: 'not_found', hint: 'the template was not found: build it first (swegym-console templates build)' };
  if (err instanceof SandboxError && err.kind === 'timeout') return { code: 'timeout', hint: 'timed out; the sandbox may have died or expired' };
  return { code: 'build_failed', hint: 'see the build log tail for the failing step' };
}

/** One line for tables/journals: "<message> — <hint>", redacted. */
export function describeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const d = diagnose(err);
  return redact(d.code === 'build_failed' ? message : `${message} — ${d.hint}`);
}
