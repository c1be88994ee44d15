// The provider contract against the local bubblewrap provider, running real sandboxes on this machine.
import { spawnSync } from 'node:child_process';
import { defineContract } from './contract.js';
import { LocalProvider } from '../../src/services/sandbox/local.js';
import { buildMinimalLocalTemplate } from '../../src/services/sandbox/localMinimal.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

defineContract(
  'local (bubblewrap)',
  async () => {
    const dir = await tempDir('swegym-local-contract-');
    const provider = new LocalProvider({ storeDir: dir });
    await buildMinimalLocalTemplate(provider, 'contract');
    return {
      provider,
      template: 'contract',
      cleanup: async () => {
        await provider.killAll();
        await removeDir(dir);
      },
    };
  },
  { skip: hasBwrap ? false : 'bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap' },
);
