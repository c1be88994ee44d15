// What the interactive app hands to every screen: global options, workspace paths, stores and service facades.
// src/app creates it (the composition root); domain capabilities add their own field here (one line each).
import type { GlobalOptions } from '../state/types/options.js';
import type { RecipePaths } from '../services/workspace/paths.js';
import type { AppStore } from '../state/app.js';
import type { JobsStore } from '../state/jobs.js';
import type { CommandLog } from '../services/process/commandLog.js';
import type { HomeStore } from '../state/home.js';
import type { MonitorService } from '../services/monitor/session.js';
import type { DataStore } from '../state/data.js';
import type { DataController } from '../services/dataset/controller.js';
import type { TemplatesService } from '../services/templates/controller.js';
import type { TrainStore } from '../state/train.js';
import type { ValidateStore } from '../state/validate.js';
import type { ValidateController } from '../services/validate/controller.js';
import type { ConvertStore } from '../state/convert.js';
import type { ConvertController } from '../services/convert/controller.js';

/** The services whose code loads after the first frame in the interactive console (src/app/domain.ts). */
export interface DomainServices {
  /** The run dashboard's service (log follower, GPU/proxy/sandbox pollers) and its store (`monitor.store`). */
  monitor: MonitorService;
  templates: TemplatesService;
  /** Validate screen: harness-validation matrix (store) and its runner (controller). */
  validate: { store: ValidateStore; controller: ValidateController };
  /** Convert screen: converter form, output, verification and row preview. */
  convert: { store: ConvertStore; controller: ConvertController };
}

/**
 * The domain fields throw ServicesNotReadyError until `whenReady()` resolved: the interactive console creates them
 * after its first frame, and lazy screens await `whenReady()` before rendering.
 */
export interface AppServices extends DomainServices {
  global: GlobalOptions;
  /** The environment the console was started with: screens pass it to the services, never read process.env. */
  env: NodeJS.ProcessEnv;
  paths: RecipePaths;
  app: AppStore;
  jobs: JobsStore;
  commandLog: CommandLog;
  home: HomeStore;
  /** Set in the sample workspace that `demo` builds (its label); every screen's status line says so. */
  sampleLabel?: string;
  /** The run (registry name, run dir or log) the dashboard opens first; the newest run when unset. */
  monitorTarget?: string;
  data: DataStore;
  /** Data screen: loads the split, runs the download job, writes the image list (publishes into `data`). */
  dataset: DataController;
  /** Train screen: launch form, derived values, checks, run registry view. */
  train: TrainStore;
  /** Stops timers and watchers when the app exits. */
  dispose(): void;
  /** Resolves once the domain fields are usable (creating them on the first call). */
  whenReady(): Promise<void>;
  /** Whether the domain fields are usable now. */
  isReady(): boolean;
}
