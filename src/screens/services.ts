// What the interactive app hands to every screen: global options, workspace paths, stores and service facades.
// Domain capabilities add their own field here (one line each) and create it in createAppServices.
import type { GlobalOptions } from '../cli/context.js';
import type { RecipePaths } from '../services/workspace/paths.js';
import type { AppStore } from '../state/app.js';
import type { JobsStore } from '../state/jobs.js';
import type { CommandLog } from '../services/process/commandLog.js';
import type { HomeStore } from '../state/home.js';
import type { MonitorService } from '../services/monitor/session.js';
import type { DataStore } from '../state/data.js';
import type { TemplatesService } from '../services/templates/controller.js';
import type { TrainStore } from '../state/train.js';
import type { ValidateStore } from '../state/validate.js';
import type { ValidateController } from '../services/validate/controller.js';
import type { ConvertStore } from '../state/convert.js';
import type { ConvertController } from '../services/convert/controller.js';

export interface AppServices {
  global: GlobalOptions;
  paths: RecipePaths;
  app: AppStore;
  jobs: JobsStore;
  commandLog: CommandLog;
  home: HomeStore;
  /** The run dashboard's service (log follower, GPU/proxy/sandbox pollers) and its store (`monitor.store`). */
  monitor: MonitorService;
  /** Set in the sample workspace that `demo` builds (its label); every screen's status line says so. */
  sampleLabel?: string;
  /** The run (registry name, run dir or log) the dashboard opens first; the newest run when unset. */
  monitorTarget?: string;
  data: DataStore;
  templates: TemplatesService;
  /** Train screen: launch form, derived values, checks, run registry view. */
  train: TrainStore;
  /** Validate screen: harness-validation matrix (store) and its runner (controller). */
  validate: { store: ValidateStore; controller: ValidateController };
  /** Convert screen: converter form, output, verification and row preview. */
  convert: { store: ConvertStore; controller: ConvertController };
  /** Stops timers and watchers when the app exits. */
  dispose(): void;
  /**
   * Resolves once every field above is usable. The interactive console creates the domain services (monitor,
   * templates, validate, convert, run discovery) after its first frame; lazy screens await this before rendering.
   */
  whenReady?: () => Promise<void>;
}
