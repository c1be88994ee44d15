// A sample's reward from its stored metadata, as Dressage's reward function decides it
// (dressage/recipes/swegym/reward.py): the marker of each `after_agent`/`swegym_harness` command record, in order, read
// by the one tested parser (findRewardMarker over stdout, stderr and raw), then the integrity flags
// (dressage/recipes/swegym/integrity.py). Where Dressage already stored its verdict (metadata.swegym_reward, written
// when the reward ran), that verdict is used as it is.
import { findRewardMarker, type MarkerParse } from './marker.js';

/** Python's truthiness of a JSON value. */
function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

/** `str(result.get(key) or "")` for the JSON values a record holds. */
function pyText(v: unknown): string {
  if (!truthy(v)) return '';
  if (typeof v === 'string') return v;
  if (v === true) return 'True';
  // Numbers and containers: close enough to str() for text that can hold no marker line anyway.
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}

/** `_marker_payload`: the first decisive marker across the harness records, or missing. */
export function markerOfMetadata(metadata: Record<string, unknown>): MarkerParse {
  const records = metadata.execute_cmds;
  if (Array.isArray(records)) {
    for (const record of records) {
      if (!record || typeof record !== 'object') continue;
      const r = record as Record<string, unknown>;
      if (r.stage !== 'after_agent' || r.name !== 'swegym_harness') continue;
      const result = (truthy(r.cmd_result) && typeof r.cmd_result === 'object' ? r.cmd_result : {}) as Record<string, unknown>;
      const parse = findRewardMarker({ stdout: pyText(result.stdout), stderr: pyText(result.stderr), raw: pyText(result.raw) });
      if (parse.ok || parse.reason === 'invalid_reward_marker') return parse;
    }
  }
  return { ok: false, reason: 'missing_reward_marker' };
}

export interface SampleReward {
  reward: number;
  /** Where it comes from: Dressage's stored verdict, or recomputed from the marker. */
  source: 'stored' | 'marker';
  /** The marker payload (unknown fields kept), when one decided. */
  marker?: Record<string, unknown>;
  /** missing_reward_marker / invalid_reward_marker, when none did. */
  markerError?: string;
}

/** The reward of a sample's metadata: Dressage's stored swegym_reward, else swegym_harness_marker_reward's rule. */
export function sampleReward(metadata: Record<string, unknown>): SampleReward {
  const stored = metadata.swegym_reward;
  if (stored && typeof stored === 'object' && !Array.isArray(stored) && typeof (stored as Record<string, unknown>).reward === 'number') {
    const diag = stored as Record<string, unknown>;
    return diag.parse_failure === true
      ? { reward: diag.reward as number, source: 'stored', markerError: String(diag.failure_reason ?? 'missing_reward_marker') }
      : { reward: diag.reward as number, source: 'stored', marker: diag };
  }
  const parse = markerOfMetadata(metadata);
  const raw = parse.ok && parse.payload.resolved === true ? 1 : 0;
  const violation = truthy(metadata.swegym_invalid_tool_call) || truthy(metadata.swegym_invalid_pytest_write);
  return parse.ok ? { reward: violation ? 0 : raw, source: 'marker', marker: parse.payload } : { reward: 0, source: 'marker', markerError: parse.reason };
}
