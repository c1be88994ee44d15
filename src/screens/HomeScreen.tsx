// Home: the pipeline as it stands on disk, the selected step explained (what, why, files, manual command), and
// the doctor's checks with their fixes. Enter opens the step's screen.
import React from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import { useSel } from '../ui/hooks.js';
import { T, STATE_SYMBOL, toneFor } from '../ui/theme.js';
import { padEnd, truncate, visibleWindow } from '../ui/text.js';
import { intent, shared, type Binding } from '../ui/keymap.js';
import type { DoctorCheck } from '../services/doctor/types.js';
import type { StepStatus } from '../services/pipeline/pipeline.js';
import type { DetailContent } from '../state/app.js';
import { DRESSAGE_CLONE_COMMAND, type CheckoutStatus } from '../services/workspace/checkout.js';
import { BLACKBOX_PORT, SWEGYM_DATASET } from '../services/recipe.js';

const WHY: Record<string, string> = {
  data: `The 293 SWE-Gym tasks (${SWEGYM_DATASET}) are the prompts; everything else is derived from them.`,
  images: 'Each task runs in its own SWE-bench image; the list drives the template builds.',
  artifacts: 'Claude Code and the Blackbox Server are baked into every template; versions must match the builds.',
  templates: 'One E2B template per image (~293), recorded in data/e2b-template-map.json for the converter.',
  smoke: `A template is usable only if the Blackbox Server answers /health on port ${BLACKBOX_PORT} inside it.`,
  convert: "Dressage's converter writes the training JSONL with the eval script and sanitizer per task.",
  validate: 'Proves grading works before GPUs are allocated: gold patch → reward 1, empty patch → 0.',
  train: 'Synchronous GRPO on Qwen3.5-4B over 4 nodes; the run is detached and outlives the console.',
};

/** In the sample workspace the steps are the same, on three sample tasks instead of SWE-Gym's 293. */
const SAMPLE_WHY: Record<string, string> = {
  data: 'Three sample tasks (samples/tasks) stand in for the 293 SWE-Gym tasks here; everything else is derived from them.',
  templates: 'One local template per sample image (the real recipe builds ~293 on E2B), recorded in data/e2b-template-map.json.',
};

const BANNER_ROWS = 5;

/** Nothing of the recipe is here (the sample workspace is not a checkout either, but is meant to be that way). */
function outsideCheckout(checkout: CheckoutStatus | undefined, services: ScreenProps['services']): checkout is CheckoutStatus {
  return checkout?.found === 'none' && !services.sampleLabel;
}

/** Failing checks first, then warnings, then the rest: the doctor panel's order (its cursor indexes this list). */
export function orderedChecks(checks: readonly DoctorCheck[]): DoctorCheck[] {
  const rank = (c: DoctorCheck) => (c.status === 'fail' ? 0 : c.status === 'warn' ? 1 : 2);
  return [...checks].sort((a, b) => rank(a) - rank(b));
}

function stepWhy(step: StepStatus, sample: boolean): string {
  return (sample ? SAMPLE_WHY[step.id] : undefined) ?? WHY[step.id] ?? '';
}

/** A pipeline step whole: why, where it stands, what it writes, and the manual command to copy. */
export function stepDetail(step: StepStatus, index: number, sample: boolean): DetailContent {
  const lines: DetailContent['lines'] = [{ text: stepWhy(step, sample) }, { text: `now: ${step.detail}`, tone: toneFor(step.state) }];
  lines.push(step.next ? { text: `next: ${step.next}`, tone: 'info' } : { text: 'done', tone: 'ok' });
  if (step.outputs.length) lines.push({ text: `writes: ${step.outputs.join(', ')}`, tone: 'dim' });
  return { title: `${index + 1}. ${step.title}`, lines, copy: { label: 'manual', text: step.manual } };
}

/** A doctor check whole, with its fix command to copy. */
export function checkDetail(check: DoctorCheck): DetailContent {
  const lines: DetailContent['lines'] = [{ text: `${STATE_SYMBOL[check.status] ?? '?'} ${check.status}: ${check.detail}`, tone: toneFor(check.status) }];
  return { title: `Doctor — ${check.title}`, lines, ...(check.fix ? { copy: { label: 'fix', text: check.fix } } : {}) };
}

function Home({ services, width, height: screenHeight, focus }: ScreenProps) {
  // Outside a Dressage checkout nothing below applies yet: say so first, with the way to get one and the demo.
  const checkout = useSel(services.home.store, (s) => s.checkout);
  const banner = outsideCheckout(checkout, services)
    ? [
        `Not a Dressage checkout: ${checkout.root}`,
        `looked for ${checkout.lookedFor.join(', ')}`,
        `get one:  ${DRESSAGE_CLONE_COMMAND}`,
        'then:     swegym-console --workspace DIR   ·   or press D for the offline demo (sample tasks, local sandboxes)',
      ]
    : [];
  const height = Math.max(1, screenHeight - (banner.length ? BANNER_ROWS : 0));
  const steps = useSel(services.home.store, (s) => s.steps);
  const checks = useSel(services.home.store, (s) => s.checks);
  const pendingChecks = useSel(services.home.store, (s) => s.pendingChecks);
  const loading = useSel(services.home.store, (s) => s.loading);
  const selected = useSel(services.home.store, (s) => s.selected);
  const compact = width < 100;

  const leftWidth = compact ? width : Math.floor(width * 0.55);
  const rightWidth = compact ? width : width - leftWidth;
  const stepRows = Math.min(steps.length || 1, Math.max(1, height - 8));
  const detailHeight = compact ? Math.max(0, Math.min(6, height - stepRows - 8)) : Math.min(7, Math.max(3, height - stepRows - 3));
  const checksHeight = compact ? Math.max(0, height - stepRows - detailHeight - 3) : height;
  const step = steps[selected];

  const doctorSelected = useSel(services.home.store, (s) => s.doctorScroll);
  const failing = checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  const okCount = checks.filter((c) => c.status === 'ok').length;
  // Failing checks first; each with its fix line while the panel is focused. Flattened so the panel can clip.
  const ordered = orderedChecks(checks);
  const selCheck = Math.min(doctorSelected, Math.max(0, ordered.length - 1));
  const doctorLines: { key: string; text: string; tone: ReturnType<typeof toneFor> | 'dim'; check: number }[] = [];
  ordered.forEach((c, i) => {
    const mark = focus === 1 ? (i === selCheck ? '› ' : '  ') : '';
    doctorLines.push({ key: c.id, text: `${mark}${STATE_SYMBOL[c.status] ?? '?'} ${c.title}: ${c.detail}`, tone: toneFor(c.status), check: i });
    if (c.fix && (c.status === 'fail' || c.status === 'warn') && focus === 1) doctorLines.push({ key: `${c.id}-fix`, text: `${mark ? '  ' : ''}    fix: ${c.fix}`, tone: 'dim', check: i });
  });
  // Checks still running, after the answers (not selectable: there is nothing to show or copy yet).
  for (const p of pendingChecks) doctorLines.push({ key: `${p.id}-pending`, text: `${focus === 1 ? '  ' : ''}… ${p.title}: checking`, tone: 'dim', check: -1 });
  // While checks run the header says how many; `Doctor — N ok, …` only once every answer is in.
  const counts = `${okCount} ok, ${failing.filter((c) => c.status === 'fail').length} fail, ${failing.filter((c) => c.status === 'warn').length} warn`;
  const doctorHeader = `Doctor — ${
    pendingChecks.length ? `${pendingChecks.length} checking: ${counts}` : checks.length ? counts : loading ? 'starting…' : 'no checks run'
  }${focus === 1 ? ' (v / Enter: whole check)' : ' (Tab: fixes)'}`;
  const checkRows = Math.max(0, checksHeight - 1);
  const firstLine = Math.max(0, doctorLines.findIndex((l) => l.check === selCheck));
  const [scroll] = visibleWindow(doctorLines.length, firstLine, checkRows);
  const shownDoctor = doctorLines.slice(scroll, scroll + checkRows);

  const pipeline = (
    <Box flexDirection="column" width={leftWidth} height={stepRows + 2 + detailHeight} overflow="hidden">
      <T tone={focus === 0 ? 'accent' : 'plain'} bold>
        {truncate(`Pipeline — ${services.paths.root}${loading ? '  (checking…)' : ''}`, leftWidth)}
      </T>
      {steps.length === 0 ? <T tone="dim">reading the workspace…</T> : null}
      {steps.slice(0, stepRows).map((s, i) => (
        <T key={s.id} tone={toneFor(s.state)} inverse={i === selected && focus === 0}>
          {truncate(`${i === selected ? '›' : ' '} ${STATE_SYMBOL[s.state] ?? '?'} ${i + 1}. ${padEnd(s.title, 28)} ${s.detail}`, leftWidth)}
        </T>
      ))}
      {step && detailHeight > 0 ? (
        <Box flexDirection="column" marginTop={1} height={detailHeight} overflow="hidden">
          <T>{truncate(stepWhy(step, Boolean(services.sampleLabel)), leftWidth)}</T>
          <T tone={toneFor(step.state)}>{truncate(`now: ${step.detail}`, leftWidth)}</T>
          {step.next ? <T tone="info">{truncate(`next: ${step.next}`, leftWidth)}</T> : <T tone="ok">done</T>}
          {step.outputs.length ? <T tone="dim">{truncate(`writes: ${step.outputs.join(', ')}`, leftWidth)}</T> : null}
          <T tone="dim">{[...`manual: ${step.manual}`].length > leftWidth ? `${truncate(`manual: ${step.manual}`, leftWidth - 4)} (v)` : `manual: ${step.manual}`}</T>
        </Box>
      ) : null}
    </Box>
  );
  const doctor = checksHeight > 2 ? (
    <Box flexDirection="column" width={rightWidth} height={checksHeight} overflow="hidden" paddingLeft={compact ? 0 : 1}>
      <T tone={focus === 1 ? 'accent' : 'plain'} bold>
        {truncate(doctorHeader, rightWidth - 1)}
      </T>
      {shownDoctor.map((l) => (
        <T key={l.key} tone={l.tone} inverse={focus === 1 && l.check === selCheck && !l.key.endsWith('-fix')}>
          {truncate(l.text, rightWidth - 1)}
        </T>
      ))}
    </Box>
  ) : null;
  const panels = (
    <Box flexDirection={compact ? 'column' : 'row'} width={width} height={height} overflow="hidden">
      {pipeline}
      {doctor}
    </Box>
  );
  if (!banner.length) return panels;
  return (
    <Box flexDirection="column" width={width} height={screenHeight} overflow="hidden">
      <Box flexDirection="column" height={BANNER_ROWS} overflow="hidden">
        {banner.map((line, i) => (
          <T key={i} tone={i === 0 ? 'warn' : i === 3 ? 'info' : 'plain'} bold={i === 0}>
            {truncate(line, width)}
          </T>
        ))}
      </Box>
      {panels}
    </Box>
  );
}

export const homeScreen: ScreenModule = {
  id: 'home',
  title: 'Home',
  hotkey: '1',
  panels: ['pipeline', 'doctor'],
  Component: Home,
  bindings: (services): Binding[] => {
    const home = () => services.home.store.getState();
    const onDoctor = () => services.app.getState().focus === 1;
    const move = (delta: number) => () => {
      if (onDoctor()) {
        const n = home().checks.length;
        home().set({ doctorScroll: Math.max(0, Math.min(n - 1, home().doctorScroll + delta)) });
        return;
      }
      const { steps, selected, set } = home();
      if (steps.length) set({ selected: Math.max(0, Math.min(steps.length - 1, selected + delta)) });
    };
    const view = () => {
      if (onDoctor()) {
        const check = orderedChecks(home().checks)[home().doctorScroll];
        if (check) services.app.getState().openDetail(checkDetail(check));
        return;
      }
      const { steps, selected } = home();
      const step = steps[selected];
      if (step) services.app.getState().openDetail(stepDetail(step, selected, Boolean(services.sampleLabel)));
    };
    return [
      shared('up', 'previous step / check', move(-1)),
      shared('down', 'next step / check', move(1)),
      shared('pageUp', 'page up', move(-10), { footer: false }),
      shared('pageDown', 'page down', move(10), { footer: false }),
      shared('open', 'open the step’s screen (doctor: the whole check)', () => {
        // On the doctor panel Enter opens the check, never the pipeline step's screen.
        if (onDoctor()) return view();
        const step = home().steps[home().selected];
        if (step) services.app.getState().go(step.screen);
      }),
      shared('view', 'show the step / check whole', view, { short: 'whole' }),
      shared('refresh', 'refresh', () => void services.home.controller.refresh()),
      {
        ...intent('home.demo'),
        run: () => {
          if (outsideCheckout(home().checkout, services)) services.app.getState().requestExit('demo');
          else services.app.getState().setFlash('the offline demo: swegym-console demo (this workspace is a Dressage checkout)');
        },
      },
    ];
  },
};
