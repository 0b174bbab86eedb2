// The daemon says a word when the SQLite file is open to other users (e.g. mode 0644 after a
// copy): one warning line naming the file, its mode and the fix.
import { chmod } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon } from '../../src/http/server.js';
import { createAccounts, createSandbox, IS_PG, type Sandbox } from '../helpers/cli.js';

describe.skipIf(IS_PG)('a database file readable by others', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await createSandbox();
    await createAccounts(box, { root: 'superuser' });
  });
  afterAll(async () => box?.cleanup());

  const linesOfAStart = async () => {
    const lines: string[] = [];
    const config = loadConfig(box.configFile, { ...process.env, ...box.env });
    const daemon = await startDaemon(config, {
      host: '127.0.0.1',
      port: 0,
      logDestination: { write: (l: string) => lines.push(l) > 0 } as unknown as NodeJS.WritableStream,
    });
    await daemon.close();
    return { lines, file: config.database.client === 'sqlite3' ? config.database.filename : '' };
  };

  it('is logged once at warn level when the daemon starts, with the fix', async () => {
    const { file } = await linesOfAStart();
    await chmod(file, 0o644);
    const { lines } = await linesOfAStart();
    const warnings = lines
      .map((l) => JSON.parse(l) as { level: string; msg: string })
      .filter((l) => l.msg.includes('chmod 600'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe('warn');
    expect(warnings[0]?.msg).toContain('0644');
    await chmod(file, 0o600);
    const quiet = await linesOfAStart();
    expect(quiet.lines.some((l) => l.includes('chmod 600'))).toBe(false);
  });
});
