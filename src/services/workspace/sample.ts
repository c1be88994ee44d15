// The sample workspace that `swegym-console demo` builds: a marker file says so, and holds the label every place
// that shows its data repeats (its tasks are tiny samples, not SWE-Gym's 293).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RecipePaths } from './paths.js';

export const SAMPLE_LABEL = 'SAMPLE WORKSPACE — tiny sample tasks from samples/tasks, local bubblewrap sandboxes, Claude Code with a scripted model (or a stand-in); not SWE-Gym';
/** What building templates means in the sample workspace (the screen and `templates build` both say it). */
export const SAMPLE_TEMPLATES_NOTE =
  'sample workspace: its templates are built by `swegym-console demo` with local stand-ins for Claude Code and the Blackbox Server (no artifacts needed); run the demo again to rebuild them';

/** In `.swegym-console/`; its text is the label. */
export const SAMPLE_MARKER_FILE = 'sample-workspace';

export function sampleMarkerFile(paths: RecipePaths): string {
  return path.join(paths.consoleDir, SAMPLE_MARKER_FILE);
}

/** The workspace as the registry finds it once: a Dressage checkout, or the sample workspace `demo` builds. */
export type WorkspaceProfile = { kind: 'real' } | { kind: 'sample'; label: string };

/**
 * The workspace's profile from its marker file. The registry reads it once (src/app/registry.ts) and hands it to
 * every domain; a job or controller built without one (a test) reads it here.
 */
export function workspaceProfile(paths: RecipePaths): WorkspaceProfile {
  const label = sampleWorkspaceLabel(paths);
  return label === undefined ? { kind: 'real' } : { kind: 'sample', label };
}

/** The label of a sample workspace, or undefined for any other workspace. */
export function sampleWorkspaceLabel(paths: RecipePaths): string | undefined {
  try {
    return readFileSync(sampleMarkerFile(paths), 'utf8').trim() || SAMPLE_LABEL;
  } catch {
    return undefined;
  }
}
