// The setup most HTTP test files start with: a daemon on a fresh sandbox, an API client for it,
// and the accounts of basicTokens with a token each.
//
//   const { cli, daemon, api, t } = useDaemonWithTokens();
//   it('…', async () => expect((await api.get('/api/actors', t.user)).status).toBe(200));
import { afterAll, beforeAll } from 'vitest';
import type { Json } from './config.js';
import { basicTokens, client, type BasicTokens, type Client } from './api.js';
import { createAccounts, createSandbox, createToken, type Sandbox } from './cli.js';
import { patchConfig } from './config.js';
import { startDaemon, useDaemon, type DaemonOptions, type RunningDaemon } from './daemon.js';

export interface DaemonWithTokens {
  cli: () => Sandbox;
  daemon: () => RunningDaemon;
  api: Client;
  /** Filled in by a beforeAll hook registered here, so before the test file's own hooks run. */
  t: BasicTokens;
}

/** Starts a daemon for the file (useDaemon, with `opts`) and creates an editor's and a user's token. */
export function useDaemonWithTokens(opts: DaemonOptions = {}): DaemonWithTokens {
  const { cli, daemon } = useDaemon(opts);
  const t: BasicTokens = { editor: '', user: '' };
  beforeAll(async () => {
    Object.assign(t, await basicTokens(cli()));
  });
  return { cli, daemon, api: client(daemon), t };
}

export interface ConfiguredDaemon {
  box: Sandbox;
  daemon: RunningDaemon;
  /** A token of the editor `ed` (created by the superuser `root`). */
  editor: string;
}

/**
 * A sandbox of its own with `patch` merged into its configuration, an editor's token, and a
 * daemon started on it; stopped and removed after the file (or the describe block it is called
 * in). The fields are filled in by a beforeAll hook registered here.
 */
export function useDaemonWithConfig(patch: Json): ConfiguredDaemon {
  const own = {} as ConfiguredDaemon;
  beforeAll(async () => {
    const box = await createSandbox();
    await patchConfig(box, patch);
    await createAccounts(box, { root: 'superuser', ed: 'editor' });
    const editor = (await createToken(box, 'ed', 'tests', 'root')).token;
    Object.assign(own, { box, editor, daemon: await startDaemon(box) });
  });
  afterAll(async () => {
    await own.daemon?.stop();
    await own.box?.cleanup();
  });
  return own;
}
