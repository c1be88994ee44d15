// The run's Weights & Biases run, when the launch turns W&B on (USE_WANDB=1; the launcher then passes --use-wandb
// --wandb-project/--wandb-group/--wandb-team to slime). Where the run lives comes from wandb's own start-up lines in
// the trainer's output (the run log):
//   wandb: 🚀 View run <name> at: https://wandb.ai/<entity>/<project>/runs/<id>   (older: "View run at <url>")
//   wandb: ⭐️ View project at https://wandb.ai/<entity>/<project>
//   wandb: Run data is saved locally in <dir>/wandb/[offline-]run-<stamp>-<id>
//   wandb: W&B syncing is set to `offline` in this directory.
// Before those lines are written (the trainer starts minutes after the launch), the settings name the project.
import { open } from 'node:fs/promises';

export interface WandbRun {
  mode: 'online' | 'offline';
  /** The run's page (online), from wandb's line. */
  runUrl?: string;
  /** The project's page: wandb's line, else https://wandb.ai/<WANDB_TEAM>/<WANDB_PROJECT> when the team is set. */
  projectUrl?: string;
  project: string;
  /** wandb's local run directory. */
  dir?: string;
  /** One line for the header and `train status`. */
  summary: string;
  /** The manual equivalents, in wandb's CLI words. */
  manual: string[];
}

const RUN_URL = /wandb: .*View run (?:.* )?at:? (https?:\/\/\S+\/runs\/\S+)/;
const PROJECT_URL = /wandb: .*View project at:? (https?:\/\/\S+)/;
const LOCAL_DIR = /wandb: Run data is saved locally in (\S+)/;
const OFFLINE = /wandb: W&B syncing is set to [`'"]?offline/;

export interface WandbLines {
  runUrl?: string;
  projectUrl?: string;
  dir?: string;
  offline?: boolean;
}

/** wandb's start-up lines in the first `maxBytes` of the log. */
export async function wandbLinesInLog(file: string, maxBytes = 64 * 1024 * 1024): Promise<WandbLines> {
  const out: WandbLines = {};
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return out;
  }
  try {
    const buf = Buffer.alloc(1024 * 1024);
    let carry = '';
    for (let pos = 0; pos < maxBytes; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const text = carry + buf.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) {
        if (!l.includes('wandb:')) continue;
        out.runUrl ??= RUN_URL.exec(l)?.[1];
        out.projectUrl ??= PROJECT_URL.exec(l)?.[1];
        out.dir ??= LOCAL_DIR.exec(l)?.[1];
        if (OFFLINE.test(l)) out.offline = true;
      }
      if (out.dir && (out.runUrl || out.offline)) break;
    }
  } finally {
    await fh.close();
  }
  return out;
}

const on = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

/** The W&B run of a launch (undefined when W&B is off), from its settings and the lines wandb logged. */
export function wandbRun(settings: Record<string, string | undefined>, lines: WandbLines): WandbRun | undefined {
  if (!on(settings['USE_WANDB'])) return undefined;
  const offline = lines.offline === true || /^(offline|dryrun)$/i.test(settings['WANDB_MODE'] ?? '');
  const project = settings['WANDB_PROJECT'] || 'dressage-swegym';
  const team = settings['WANDB_TEAM'];
  const projectUrl = lines.projectUrl ?? (team && team !== '(unset)' ? `https://wandb.ai/${encodeURIComponent(team)}/${encodeURIComponent(project)}` : undefined);
  const dir = lines.dir;
  const manual: string[] = [];
  if (offline) {
    manual.push(dir ? `wandb sync ${dir}` : 'wandb sync <dir>/wandb/offline-run-*  (the trainer\'s working directory)');
    manual.push(dir ? `wandb beta leet ${dir}` : 'wandb beta leet <dir>/wandb/offline-run-*');
  } else if (dir) manual.push(`wandb beta leet ${dir}   (on the node that writes it)`);
  const summary = offline
    ? `W&B offline${dir ? ` · ${dir}` : ' · run directory not logged yet'}`
    : lines.runUrl
      ? `W&B ${lines.runUrl}`
      : `W&B project ${projectUrl ?? project}${projectUrl ? '' : ' (entity: your W&B default)'} · run link not logged yet`;
  return { mode: offline ? 'offline' : 'online', ...(lines.runUrl ? { runUrl: lines.runUrl } : {}), ...(projectUrl ? { projectUrl } : {}), project, ...(dir ? { dir } : {}), summary, manual };
}
