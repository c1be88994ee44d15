// The scripted Anthropic Messages API server lives in services (the offline demo replays a known solution through
// it); tests use the same one. It is written from the API reference, not from the console's readers.
export * from '../../src/services/agent/scriptedModel.js';
