// Docker image naming for SWE-Gym tasks, exactly as Dressage's `registry_image_for_instance` (recipe reference §2.2):
// legacy SWE-bench repos keep their case under `swebench/…_1776_…`; every other repo goes to `xingyaoww/…` with the
// whole id lower-cased and `__` replaced by `_s_`.

/** Repos whose images come from the official SWE-bench namespace (exact, case-sensitive `owner/name`). */
export const LEGACY_SWEBENCH_IMAGE_REPOS: ReadonlySet<string> = new Set([
  'marshmallow-code/marshmallow',
  'pydicom/pydicom',
  'pylint-dev/astroid',
  'pvlib/pvlib-python',
  'pyvista/pyvista',
  'sqlfluff/sqlfluff',
]);

export interface InstanceIdParts {
  owner: string;
  imageRepo: string;
  issueId: string;
}

/**
 * Splits `owner__name-123` at the first `__` and then at the last `-`. Returns undefined for ids that do not have
 * that form (Dressage fails on them too, with a Python unpacking error).
 */
export function parseInstanceId(instanceId: string): InstanceIdParts | undefined {
  const sep = instanceId.indexOf('__');
  if (sep < 0) return undefined;
  const owner = instanceId.slice(0, sep);
  const rest = instanceId.slice(sep + 2);
  const dash = rest.lastIndexOf('-');
  if (dash < 0) return undefined;
  return { owner, imageRepo: rest.slice(0, dash), issueId: rest.slice(dash + 1) };
}

export function isLegacyRepo(repo: string): boolean {
  return LEGACY_SWEBENCH_IMAGE_REPOS.has(repo);
}

/** Why an instance id cannot be turned into an image name, or undefined when it can. */
export function instanceIdProblem(instanceId: string): string | undefined {
  if (!instanceId.includes('__')) return `"${instanceId}" has no "__" between owner and repository (expected owner__name-123)`;
  if (!instanceId.slice(instanceId.indexOf('__') + 2).includes('-')) {
    return `"${instanceId}" has no "-" before the issue number (expected owner__name-123)`;
  }
  return undefined;
}

/** The task's Docker image; throws for a malformed id (validate first with `instanceIdProblem`). */
export function imageForInstance(instanceId: string, repo: string): string {
  const parts = parseInstanceId(instanceId);
  if (!parts) throw new Error(instanceIdProblem(instanceId) ?? `malformed instance id "${instanceId}"`);
  if (isLegacyRepo(repo)) {
    return `swebench/sweb.eval.x86_64.${parts.owner}_1776_${parts.imageRepo}-${parts.issueId}:latest`;
  }
  return `xingyaoww/sweb.eval.x86_64.${instanceId.split('__').join('_s_').toLowerCase()}:latest`;
}

/** True for images in the legacy SWE-bench namespace. */
export function isLegacyImage(image: string): boolean {
  return image.startsWith('swebench/');
}
