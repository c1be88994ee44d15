// The dataset service's public surface. Heavy libraries (apache-arrow, parquet-wasm, undici) load inside the functions.
export { formatProblem, type DataProblem, type SplitData, type SweGymTask, type TestListEncoding } from './types.js';
export { readSplit, DataValidationError, REQUIRED_FIELDS, type ReadSplitOptions } from './read.js';
export { imageForInstance, instanceIdProblem, isLegacyImage, isLegacyRepo, parseInstanceId, LEGACY_SWEBENCH_IMAGE_REPOS } from './imageName.js';
export { writeImageList, uniqueImages, imageListText, summaryLine, pythonPathString, type ImageListResult } from './images.js';
export { summarize, instanceRecord, repoCounts, distribution, type SplitSummary, type InstanceRecord, type Distribution } from './summary.js';
export { downloadHubFile, hubConfig, resolveUrl, type DownloadProgress, type DownloadResult, type HubConfig } from './hub.js';
export { downloadSplit, loadSplit, writeSplitImages, parseSplit, parseExpectRows, type DownloadSplitResult } from './split.js';
export { formatProgress } from './format.js';
