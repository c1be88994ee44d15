// The templates types that the stores hold; src/services/templates builds them and re-exports them.

export interface TemplateStatusRow {
  image: string;
  template: string;
  state: TemplateState;
  smoke: SmokeState | null;
  error: string;
  durationMs?: number;
  updatedAt?: string;
  /** The template is in data/e2b-template-map.json. */
  mapped: boolean;
}

export interface TemplateCounts {
  total: number;
  queued: number;
  building: number;
  built: number;
  failed: number;
  mapped: number;
  smokePassed: number;
  smokeFailed: number;
}

export type TemplateState = 'queued' | 'building' | 'built' | 'failed';

export type SmokeState = 'passed' | 'failed';
