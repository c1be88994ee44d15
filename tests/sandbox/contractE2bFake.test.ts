// The provider contract against the real E2B adapter and the real `e2b` SDK, talking to the local fake E2B server.
import { defineContract, HEALTH_BODY } from './contract.js';
import { startFakeE2b } from '../fakes/e2bServer.js';
import { E2bProvider } from '../../src/services/sandbox/e2b.js';

defineContract('e2b (fake server)', async () => {
  const fake = await startFakeE2b({
    templates: ['contract'],
    services: { contract: { 31000: ({ path }) => (path === '/health' ? { status: 200, body: HEALTH_BODY } : { status: 404, body: '{}' }) } },
    foreignSandboxes: [{ templateID: 'contract', metadata: { owner: 'another-tool' } }],
  });
  const provider = new E2bProvider({ apiKey: fake.apiKey, apiUrl: fake.url, sandboxUrl: fake.url, retry: { baseMs: 5, maxMs: 50 }, commandGraceMs: 2000 });
  const foreign = fake.alive().find((s) => s.metadata.owner === 'another-tool');
  return { provider, template: 'contract', foreignId: foreign?.sandboxID, cleanup: () => fake.close() };
});
