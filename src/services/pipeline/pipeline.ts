// Derives where the operator stands in the recipe from the files on disk (never only from memory), so that
// manual steps and console steps mix freely.
import { readJournalItems } from '../workspace/journal.js';
import { readTemplateRecords } from '../templates/records.js';
import { damagedMapError, inspectTemplateMap } from '../templates/map.js';
import { stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { ConsoleError } from '../errors.js';
import { workspaceProfile, type WorkspaceProfile } from '../workspace/sample.js';
import { manualArtifactsCommand, resolveArtifactConfig } from '../artifacts/versions.js';
import type { StepStatus, StepState } from '../../state/types/workspace.js';
import { listDir } from '../util/fs.js';
export type { StepStatus, StepState } from '../../state/types/workspace.js';

async function mtime(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

async function readLines(file: string): Promise<string[] | undefined> {
  try {
    return (await readFile(file, 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Lines of a file (a last line without a newline counts); undefined when it cannot be read. */
export async function countLines(file: string): Promise<number | undefined> {
  try {
    const buf = await readFile(file);
    let n = 0;
    for (const b of buf) if (b === 10) n++;
    if (buf.length > 0 && buf[buf.length - 1] !== 10) n++;
    return n;
  } catch {
    return undefined;
  }
}

/** Every step's state from disk; `profile` as the registry read it (read from the marker when not given). */
export async function pipelineStatus(paths: RecipePaths, profile: WorkspaceProfile = workspaceProfile(paths)): Promise<StepStatus[]> {
  const rel = (p: string) => path.relative(paths.root, p);
  const parquet = paths.parquet('train');
  const [parquetTime, imagesTime, mapTime, jsonlTime] = await Promise.all([
    mtime(parquet),
    mtime(paths.imageList),
    mtime(paths.templateMap),
    mtime(paths.trainJsonl),
  ]);
  const images = await readLines(paths.imageList);
  const steps: StepStatus[] = [];

  steps.push({
    id: 'data',
    title: 'Download the SWE-Gym split',
    state: parquetTime ? 'present' : 'missing',
    detail: parquetTime ? 'train.parquet present' : 'train.parquet missing',
    next: parquetTime ? undefined : 'download train.parquet (swegym-console data download)',
    outputs: [rel(parquet)],
    manual: 'python3 examples/data/swegym/prepare_swegym_e2b.py list-images --download --download-dir data/swegym-source --split train --output data/swegym-images.txt',
    screen: 'data',
  });

  let imagesState: StepState = 'missing';
  if (images) imagesState = images.length === 0 ? 'invalid' : parquetTime && imagesTime && imagesTime < parquetTime ? 'stale' : 'present';
  steps.push({
    id: 'images',
    title: 'List task images',
    state: imagesState,
    detail: images ? `${images.length} images${imagesState === 'stale' ? ' (older than the parquet)' : ''}` : 'image list missing',
    next: imagesState === 'present' ? undefined : 'write the image list (swegym-console data images)',
    outputs: [rel(paths.imageList)],
    manual: 'python3 examples/data/swegym/prepare_swegym_e2b.py list-images --input data/swegym-source/train.parquet --output data/swegym-images.txt',
    screen: 'data',
  });

  const artifacts = await listDir(paths.artifactDir);
  const binary = artifacts.find((f) => /^claude-.+-linux-x64$/.test(f));
  const runtime = artifacts.find((f) => /^claude-code-runtime-python-.+-bbs-.+\.tar\.gz$/.test(f));
  // The demo's templates carry local stand-ins for Claude Code and the BBS: nothing to build there.
  const standIns = !(binary && runtime) && profile.kind === 'sample';
  steps.push({
    id: 'artifacts',
    title: 'Build sandbox artifacts',
    state: binary && runtime ? 'present' : standIns ? 'present' : binary || runtime ? 'partial' : 'missing',
    detail: binary && runtime ? `${binary}, ${runtime}` : standIns ? 'not needed (sample stand-ins)' : binary || runtime ? `only ${binary ?? runtime}` : 'not built',
    next: binary && runtime ? undefined : standIns ? undefined : 'build the Claude Code binary + BBS runtime (swegym-console artifacts build)',
    outputs: [rel(paths.artifactDir) + '/'],
    manual: manualArtifactsCommand(await resolveArtifactConfig(paths, {}), paths.root),
    screen: 'templates',
  });

  let mapState: StepState = 'missing';
  let mapDetail = 'template map missing';
  {
    // The one reader of the map: a damaged map is refused in the same words as everywhere else.
    const check = await inspectTemplateMap(paths.templateMap).catch((err: unknown) => err as Error);
    const refusal = check instanceof Error ? check : damagedMapError(check, paths.templateMap);
    if (refusal) {
      mapState = 'invalid';
      mapDetail = refusal instanceof ConsoleError ? refusal.what : `cannot read the template map: ${refusal.message}`;
    } else if (!(check instanceof Error) && !check.problems.some((p) => p.kind === 'missing_file')) {
      const map = check.map;
      const covered = images ? images.filter((i) => map[i]).length : Object.keys(map).length;
      const total = images?.length;
      mapState = total === undefined ? 'present' : covered === total ? 'present' : covered === 0 ? 'missing' : 'partial';
      mapDetail = total === undefined ? `${Object.keys(map).length} templates mapped` : `${covered}/${total} images have a template`;
    }
  }
  steps.push({
    id: 'templates',
    title: 'Build E2B templates',
    state: mapState,
    detail: mapDetail,
    next: mapState === 'present' ? undefined : 'build one template per image (swegym-console templates build)',
    outputs: [rel(paths.templateMap)],
    manual: 'TASK_IMAGE=… TEMPLATE_NAME=… python3 examples/data/swegym/prepare_swegym_e2b.py build   # once per image',
    screen: 'templates',
  });

  const smokeItems = Object.values((await readTemplateRecords(paths)) ?? {});
  const smokePassed = smokeItems.filter((i) => i.smoke === 'passed').length;
  const smokeFailed = smokeItems.filter((i) => i.smoke === 'failed').length;
  steps.push({
    id: 'smoke',
    title: 'Smoke-test templates',
    state: smokeItems.length === 0 ? 'missing' : smokeFailed > 0 ? 'partial' : smokePassed > 0 ? 'present' : 'missing',
    detail: smokeItems.length === 0 ? 'no smoke results yet' : `${smokePassed} passed, ${smokeFailed} failed`,
    next: smokePassed > 0 && smokeFailed === 0 ? undefined : 'check BBS /health in each template (swegym-console templates smoke --all)',
    outputs: [],
    manual: 'python3 examples/data/swegym/prepare_swegym_e2b.py smoke --template-name <name>',
    screen: 'templates',
  });

  const rows = await countLines(paths.trainJsonl);
  let convertState: StepState = rows === undefined ? 'missing' : 'present';
  if (jsonlTime && ((mapTime && mapTime > jsonlTime) || (parquetTime && parquetTime > jsonlTime))) convertState = 'stale';
  steps.push({
    id: 'convert',
    title: 'Convert to Dressage JSONL',
    state: convertState,
    detail: rows === undefined ? 'JSONL missing' : `${rows} rows${convertState === 'stale' ? ' (older than its inputs)' : ''}`,
    next: convertState === 'present' ? undefined : 'run the converter (swegym-console convert)',
    outputs: [rel(paths.trainJsonl)],
    manual: 'python3 examples/data/swegym/prepare_swegym_data.py data/swegym-train-claude-code-e2b.jsonl --input data/swegym-source/train.parquet --split train --provider e2b --sandbox-image-map data/e2b-template-map.json',
    screen: 'convert',
  });

  const validation = await readJournalItems<{ ok?: boolean }>(path.join(paths.journalsDir, 'validate-harness.json')).then((items) => ({ items }), () => undefined);
  const vItems = Object.values(validation?.items ?? {});
  const vOk = vItems.filter((i) => i.ok === true).length;
  steps.push({
    id: 'validate',
    title: 'Validate tasks end to end',
    state: vItems.length === 0 ? 'missing' : vOk === vItems.length ? 'present' : 'partial',
    detail: vItems.length === 0 ? 'no validation results yet' : `${vOk}/${vItems.length} tasks validated`,
    next: vItems.length > 0 && vOk === vItems.length ? undefined : 'gold patch → reward 1, empty patch → 0 (swegym-console validate harness --all)',
    outputs: [],
    manual: '(no Dressage tool: apply the gold patch in a sandbox and read DRESSAGE_SWEGYM_REWARD_JSON=)',
    screen: 'validate',
  });

  const runs = await listDir(paths.runsDir);
  steps.push({
    id: 'train',
    title: 'Launch GRPO training',
    state: runs.length > 0 ? 'present' : 'missing',
    detail: runs.length > 0 ? `${runs.length} run(s) in the registry` : 'no run launched from this console',
    next: runs.length > 0 ? undefined : 'check the launch settings and start (swegym-console train launch)',
    outputs: ['outputs/logs/<RUN_NAME>/'],
    manual: 'bash examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh',
    screen: 'train',
  });
  return steps;
}
