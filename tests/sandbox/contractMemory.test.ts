// The provider contract against the in-memory provider (the double orchestration tests use).
import { defineContract, HEALTH_BODY } from './contract.js';
import { MemoryProvider } from '../../src/services/sandbox/memory.js';

defineContract('memory', async () => {
  const provider = new MemoryProvider({
    templates: { contract: { services: { 31000: (p) => (p === '/health' ? { status: 200, body: HEALTH_BODY } : { status: 404, body: '{}' }) } } },
    foreignSandboxes: [{ id: 'someone-elses', template: 'other', metadata: { owner: 'another-tool' } }],
    retry: { baseMs: 1, maxMs: 5 },
  });
  return { provider, template: 'contract', foreignId: 'someone-elses', cleanup: async () => {} };
});
