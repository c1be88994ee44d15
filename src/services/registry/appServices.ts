// What the console hands to every screen: the registry's dependencies and every domain as its definition creates it
// ({ store, controller }). src/app/registry.ts builds it; screens import this type (a screen never imports app).
// Nothing in src/services imports this file: it names every domain, and every domain imports services/domain.
import type { GlobalOptions } from '../../state/types/options.js';
import type { RecipePaths } from '../workspace/paths.js';
import type { AppStore } from '../../state/app.js';
import type { JobsStore } from '../../state/jobs.js';
import type { CommandLog } from '../process/commandLog.js';
import type { HomeStore } from '../../state/home.js';
import type { MonitorService } from '../monitor/session.js';
import type { DataStore } from '../../state/data.js';
import type { DataController } from '../dataset/controller.js';
import type { TemplatesController } from '../templates/controller.js';
import type { TemplatesStore } from '../../state/templates.js';
import type { TrainStore } from '../../state/train.js';
import type { TrainController } from '../train/controller.js';
import type { ValidateStore } from '../../state/validate.js';
import type { ValidateController } from '../validate/controller.js';
import type { ConvertStore } from '../../state/convert.js';
import type { ConvertController } from '../convert/controller.js';
import type { HomeController } from '../pipeline/controller.js';
import type { ConsoleDeps, DomainInstance } from '../domain/definition.js';

/** The services whose code loads after the first frame in the interactive console (src/app/domain.ts). */
export interface DomainServices {
  /** The run dashboard's service (log follower, GPU/proxy/sandbox pollers): the monitor's controller; its store is `monitor.store`. */
  monitor: MonitorService;
  /** Templates screen: builds, smoke tests, the artifacts build. */
  templates: DomainInstance<TemplatesStore, TemplatesController>;
  /** Validate screen: harness-validation matrix (store) and its runner (controller). */
  validate: DomainInstance<ValidateStore, ValidateController>;
  /** Convert screen: converter form, output, verification and row preview. */
  convert: DomainInstance<ConvertStore, ConvertController>;
  /** Train screen: launch form, derived values, checks, run registry view; launch and stop. */
  train: DomainInstance<TrainStore, TrainController>;
}

/**
 * The domain fields throw ServicesNotReadyError until `whenReady()` resolved: the interactive console creates them
 * after its first frame, and lazy screens await `whenReady()` before rendering.
 */
export interface AppServices extends DomainServices {
  /** The one set of dependencies every domain was built from. */
  deps: ConsoleDeps;
  global: GlobalOptions;
  /** The environment the console was started with: screens pass it to the services, never read process.env. */
  env: NodeJS.ProcessEnv;
  paths: RecipePaths;
  app: AppStore;
  jobs: JobsStore;
  commandLog: CommandLog;
  /** Home screen: the pipeline from disk and the doctor (created with the first frame). */
  home: DomainInstance<HomeStore, HomeController>;
  /** Set in the sample workspace that `demo` builds (its label); every screen's status line says so. */
  sampleLabel?: string;
  /** The run (registry name, run dir or log) the dashboard opens first; the newest run when unset. */
  monitorTarget?: string;
  data: DataStore;
  /** Data screen: loads the split, runs the download job, writes the image list (publishes into `data`). */
  dataset: DataController;
  /** Stops timers and watchers when the app exits. */
  dispose(): void;
  /** Resolves once the domain fields are usable (creating them on the first call). */
  whenReady(): Promise<void>;
  /** Whether the domain fields are usable now. */
  isReady(): boolean;
}
