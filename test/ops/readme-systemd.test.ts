// The README's "Running under systemd", replayed from the user to the unit, as root, in a mount
// namespace of the test's own: /etc, /opt, /usr/local, /var/lib and /var/log are overlays there,
// so the `archive` user, the program under /opt/archivectl, the configuration and the unit are
// made as written while the machine's own files stay as they were. Step 1 installs a tarball
// packed from this checkout (its dist/ and man/, as `npm install` built them). Without systemd as
// PID 1, `systemctl daemon-reload` and `enable --now` are done by hand: the unit must pass
// `systemd-analyze verify`, its state directory is made as StateDirectory= says, and its
// ExecStart= line runs as User=/Group= with the unit's Environment=, in a network namespace of its
// own (so port 8080 is free). The rest of step 4 then runs as written, against that daemon.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, REPO_ROOT, TOKEN_VALUE_RE } from '../helpers/cli.js';
import { pathOf, systemTool, unlessCI } from '../helpers/system-tools.js';
import {
  codeBlocks,
  offerSqliteBuild,
  readmeSection,
  runScript,
  tarballName,
  type ScriptRun,
} from './readme-replay.js';

const tools = {
  unshare: systemTool('unshare', 'util-linux'),
  setpriv: systemTool('setpriv', 'util-linux'),
  analyze: systemTool('systemd-analyze', 'systemd'),
  sudo: systemTool('sudo', 'sudo'),
  curl: systemTool('curl', 'curl'),
  ip: systemTool('ip', 'iproute2'),
};
const skip = IS_PG
  ? 'runs in the SQLite pass (nothing here uses PostgreSQL)'
  : (Object.values(tools).find((t) => t.skip !== null)?.skip ??
    unlessCI(process.getuid?.() === 0 ? null : 'replaying the systemd steps needs root (useradd, mounts)'));

/** The unit's settings (the last value of each key; Environment= lines all kept). */
function unitSettings(unit: string): { values: Map<string, string>; environment: string[] } {
  const values = new Map<string, string>();
  const environment: string[] = [];
  for (const line of unit.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'Environment') environment.push(m[2] as string);
    else values.set(m[1] as string, m[2] as string);
  }
  return { values, environment };
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.skipIf(skip !== null)(`the README's systemd steps, replayed${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let dir = '';
  let run: ScriptRun;
  let step4Rest: string[] = [];
  const machine = () => ({
    config: existsSync('/etc/archivectl'),
    program: existsSync('/opt/archivectl'),
    unit: existsSync('/etc/systemd/system/archivectl.service'),
    passwd: readFileSync('/etc/passwd', 'utf8'),
  });
  let before: ReturnType<typeof machine>;

  beforeAll(async () => {
    const section = readmeSection('Running under systemd');
    const [install, start] = codeBlocks(section, 'sh');
    const [unit] = codeBlocks(section, 'ini');
    expect(install, 'step 1 and 2: a sh block').toBeDefined();
    expect(unit, 'step 3: the unit').toMatch(/^# \/etc\/systemd\/system\/archivectl\.service\n/);
    expect(start, 'step 4: a sh block').toBeDefined();
    expect(install).toContain(`./${tarballName()}`);
    expect(existsSync(path.join(REPO_ROOT, 'man', 'archivectl.1')), 'man/archivectl.1: run npm install').toBe(true);

    before = machine();
    dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-systemd-'));
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: REPO_ROOT });
    offerSqliteBuild(dir);
    writeFileSync(path.join(dir, 'archivectl.service'), unit as string);

    const { values, environment } = unitSettings(unit as string);
    const user = values.get('User') ?? 'root';
    const group = values.get('Group') ?? user;
    const state = `/var/lib/${values.get('StateDirectory') ?? ''}`;
    const startLines = (start as string).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    step4Rest = startLines.filter((l) => !l.startsWith('systemctl '));
    expect(startLines.filter((l) => l.startsWith('systemctl '))).toEqual([
      'systemctl daemon-reload',
      'systemctl enable --now archivectl',
    ]);

    // The environment systemd gives a service with User=, then the unit's Environment= lines.
    const serviceEnv = [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `USER=${user}`,
      `LOGNAME=${user}`,
      `HOME=$(getent passwd ${user} | cut -d: -f6)`,
      ...environment,
    ];
    const execStart = values.get('ExecStart') ?? '';
    // Inside a network namespace of its own: the daemon on 127.0.0.1:8080, and the rest of step 4.
    const phase2 = `T="$1"
ip link set lo up
(cd / && exec setpriv --reuid=${user} --regid=${group} --init-groups env -i ${serviceEnv.join(' ')} ${execStart}) > "$T/serve.log" 2>&1 &
serve=$!
curl -s -o /dev/null --retry 30 --retry-connrefused --retry-delay 1 http://127.0.0.1:8080/healthz
echo "== step 4, the rest as written"
${step4Rest.join('\n')}
echo "== a token of the new installation, used"
sudo -u ${user} archivectl account create reader --role user --as root
sudo -u ${user} archivectl token create reader --name replay --as root > "$T/token"
curl -s -o /dev/null -w "%{http_code}\\n" -H "Authorization: Bearer $(cat "$T/token")" http://127.0.0.1:8080/api/actors > "$T/with-token"
curl -s -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:8080/api/actors > "$T/without-token"
kill -TERM "$serve"
status=0
wait "$serve" || status=$?
echo "serve exited $status" > "$T/serve.exit"
`;
    writeFileSync(path.join(dir, 'phase2.sh'), phase2);
    const script = `
set -o pipefail
T=${q(dir)}
# Overlays over what the steps change; mounts inside them (a container's /etc/resolv.conf, say)
# are put back on top.
for d in /etc /opt /usr/local /var/lib /var/log; do
  mkdir -p "$T/upper$d" "$T/work$d" "$T/keep$d"
  subs=$(awk -v d="$d" '$5 != d && index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo)
  i=0
  for s in $subs; do i=$((i+1)); if [ -d "$s" ]; then mkdir -p "$T/keep$d/$i"; else touch "$T/keep$d/$i"; fi; mount --bind "$s" "$T/keep$d/$i"; done
  mount -t overlay overlay -o "lowerdir=$d,upperdir=$T/upper$d,workdir=$T/work$d" "$d"
  i=0
  for s in $subs; do i=$((i+1)); mount --bind "$T/keep$d/$i" "$s"; done
done
cp "$T/.prebuild-installrc" /opt/.prebuild-installrc   # sqlite3 from the checkout's build (not a step)
cd "$T"
echo "== steps 1 and 2"
${install as string}
echo "== step 3"
cp archivectl.service /etc/systemd/system/archivectl.service
systemd-analyze verify /etc/systemd/system/archivectl.service > "$T/verify.out" 2>&1
echo "== step 4: systemctl enable --now, by hand"
install -d -o ${q(user)} -g ${q(group)} -m ${values.get('StateDirectoryMode') ?? '0755'} ${q(state)}
unshare --net bash -e -o pipefail "$T/phase2.sh" "$T"
`;
    run = await runScript(script, {
      cwd: dir,
      command: [pathOf(tools.unshare, 'unshare'), '--mount', '--propagation', 'private'],
      timeoutMs: 240_000,
    });
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string) => readFileSync(path.join(dir, name), 'utf8');

  it('runs steps 1 to 4 as written: the user, the program, the configuration, the unit, a running service', () => {
    const log = existsSync(path.join(dir, 'serve.log')) ? file('serve.log') : '(no serve.log)';
    expect(run.code, `${run.stdout}\n${run.stderr}\n${log}`).toBe(0);
    expect(run.stdout).toContain('== step 4, the rest as written');
  });

  it('the unit passes systemd-analyze verify without a word', () => {
    expect(file('verify.out').trim()).toBe('');
  });

  it("the ExecStart= line starts the daemon as the service's user, on the configured database", () => {
    const log = file('serve.log');
    expect(log).toMatch(/"msg":"listening"/);
    expect(log).toContain('"url":"http://127.0.0.1:8080"');
    expect(log).not.toMatch(/"level":"(error|fatal)"/);
    expect(file('serve.exit').trim()).toBe('serve exited 0');
  });

  it('step 4 as written: doctor passes and root is created; its token works, none is refused', () => {
    expect(run.stdout).toMatch(/^ok +migrations +all applied: schema \d{14}_\w+$/m);
    expect(run.stdout).toMatch(/^ok +dataDir /m);
    expect(run.stdout).not.toMatch(/^FAIL/m);
    expect(`${run.stdout}${run.stderr}`).toContain('created account root (superuser)');
    expect(file('token').trim()).toMatch(TOKEN_VALUE_RE);
    expect(file('with-token').trim()).toBe('200');
    expect(file('without-token').trim()).toBe('401');
  });

  it("leaves the machine's own files as they were", () => {
    expect(machine()).toEqual(before);
  });
});
