// docs/deployment.md, "Running under systemd", replayed from the user to the unit, as root, in a mount
// namespace of the test's own: /etc, /opt, /usr/local, /var/lib, /var/cache and /var/log are
// overlays there, so the `archive` user, the program under /opt/archivectl, its manual page,
// completions and unit, and the configuration are made as written while the machine's own files
// stay as they were. Step 1 installs a tarball packed from this checkout (its dist/, man/ and
// completion/, as `npm install` built them), and with it the unit the package ships
// (systemd/archivectl.service). The installed unit must pass `systemd-analyze verify` (which also
// looks its manual page up) and be rated at most 2.0 by `systemd-analyze security`; `man
// archivectl`, bash's completion loader and zsh's compinit must find what step 1 put in place.
// Without systemd as PID 1, `systemctl daemon-reload` and `enable --now` are done by hand: the
// state and cache directories are made as StateDirectory=/CacheDirectory= say, and the ExecStart=
// line runs as User=/Group= with the unit's environment and UMask=, in a network namespace of its
// own (so port 8080 is free) and in as much of the unit's sandbox as can be made without systemd:
// a private /tmp (PrivateTmp=), empty home directories (ProtectHome=), every file system
// read-only but the two directories (ProtectSystem=strict), a /proc of its own processes only
// (ProtectProc=invisible, ProcSubset=pid), no capabilities and no new privileges. The system call
// filter, PrivateUsers= and the namespace and address family rules need systemd itself. The rest
// of step 4 then runs as written, against that daemon.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, REPO_ROOT, TOKEN_VALUE_RE } from '../helpers/cli.js';
import { installLegOnly, pathOf, systemTool, unlessCI } from '../helpers/system-tools.js';
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
  man: systemTool('man', 'man-db'),
  zsh: systemTool('zsh', 'zsh'),
  sudo: systemTool('sudo', 'sudo'),
  curl: systemTool('curl', 'curl'),
  ip: systemTool('ip', 'iproute2'),
};
/** bash-completion's loader, which finds a command's completion where step 1 puts it. */
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const skip =
  installLegOnly() ??
  (IS_PG
    ? 'runs in the SQLite pass (nothing here uses PostgreSQL)'
    : (Object.values(tools).find((t) => t.skip !== null)?.skip ??
      unlessCI(process.getuid?.() === 0 ? null : 'replaying the systemd steps needs root (useradd, mounts)') ??
      unlessCI(
        existsSync(BASH_COMPLETION) ? null : `${BASH_COMPLETION} is missing (Debian package "bash-completion")`,
      )));

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
const UNIT = path.join(REPO_ROOT, 'systemd', 'archivectl.service');

describe.skipIf(skip !== null)(`the README's systemd steps, replayed${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let dir = '';
  let run: ScriptRun;
  let step4Rest: string[] = [];
  const machine = () => ({
    config: existsSync('/etc/archivectl'),
    program: existsSync('/opt/archivectl'),
    unit: existsSync('/etc/systemd/system/archivectl.service'),
    cache: existsSync('/var/cache/archivectl'),
    page: existsSync('/usr/local/share/man/man1/archivectl.1'),
    completion: existsSync('/usr/local/share/bash-completion/completions/archivectl'),
    passwd: readFileSync('/etc/passwd', 'utf8'),
  });
  let before: ReturnType<typeof machine>;

  beforeAll(async () => {
    const section = readmeSection('Running under systemd');
    const [install, start] = codeBlocks(section, 'sh');
    expect(install, 'steps 1 and 2: a sh block').toBeDefined();
    expect(start, 'step 4: a sh block').toBeDefined();
    expect(install).toContain(`./${tarballName()}`);
    for (const built of ['man/archivectl.1', 'completion/archivectl.bash', 'completion/_archivectl'])
      expect(existsSync(path.join(REPO_ROOT, built)), `${built}: run npm install`).toBe(true);
    // The unit step 1 installs from the package: this checkout's file (compared once installed).
    const unit = readFileSync(UNIT, 'utf8');

    before = machine();
    dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-systemd-'));
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: REPO_ROOT });
    offerSqliteBuild(dir);

    const { values, environment } = unitSettings(unit);
    const user = values.get('User') ?? 'root';
    const group = values.get('Group') ?? user;
    const state = `/var/lib/${values.get('StateDirectory') ?? ''}`;
    const cache = `/var/cache/${values.get('CacheDirectory') ?? ''}`;
    const startLines = (start as string).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    step4Rest = startLines.filter((l) => !l.startsWith('systemctl '));
    expect(startLines.filter((l) => l.startsWith('systemctl '))).toEqual([
      'systemctl daemon-reload',
      'systemctl enable --now archivectl',
    ]);

    // The environment systemd gives a service with User=, StateDirectory= and CacheDirectory=,
    // then the unit's Environment= lines.
    const serviceEnv = [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `USER=${user}`,
      `LOGNAME=${user}`,
      `HOME=$(getent passwd ${user} | cut -d: -f6)`,
      `STATE_DIRECTORY=${state}`,
      `CACHE_DIRECTORY=${cache}`,
      ...environment,
    ];
    const execStart = values.get('ExecStart') ?? '';
    // The unit's sandbox, as far as a mount namespace, setpriv and umask make it (see the top).
    const sandbox = `set -e
mount -t tmpfs -o mode=1777 tmpfs /tmp
for d in /home /root /run/user; do if [ -d "$d" ]; then mount -t tmpfs -o ro,mode=0755 tmpfs "$d"; fi; done
mount -t proc -o subset=pid,hidepid=invisible proc /proc
for d in ${state} ${cache}; do mount --bind "$d" "$d"; done
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while read -r m; do
  case "$m" in /proc | /proc/* | /sys | /sys/* | /dev | /dev/* | /tmp | ${state} | ${cache}) ;; *) mount -o remount,bind,ro "$m" ;; esac
done
if touch /var/lib/sandbox-probe 2>/dev/null; then echo "the sandbox left /var/lib writable" >&2; exit 1; fi
umask ${values.get('UMask') ?? '0022'}
cd /
exec setpriv --reuid=${user} --regid=${group} --init-groups --no-new-privs --bounding-set=-all --inh-caps=-all env -i ${serviceEnv.join(' ')} ${execStart}
`;
    writeFileSync(path.join(dir, 'sandbox.sh'), sandbox);
    // Inside a network namespace of its own: the daemon on 127.0.0.1:8080, and the rest of step 4.
    const phase2 = `T="$1"
ip link set lo up
unshare --mount --propagation private sh "$T/sandbox.sh" > "$T/serve.log" 2>&1 &
serve=$!
curl -s -o /dev/null --retry 30 --retry-connrefused --retry-delay 1 http://127.0.0.1:8080/healthz
echo "== step 4, the rest as written"
${step4Rest.join('\n')}
echo "== a token of the new installation, used"
sudo -u ${user} archivectl account create reader --role user --as root
sudo -u ${user} archivectl token create reader --name replay --as root > "$T/token"
curl -s -o /dev/null -w "%{http_code}\\n" -H "Authorization: Bearer $(cat "$T/token")" http://127.0.0.1:8080/api/actors > "$T/with-token"
curl -s -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:8080/api/actors > "$T/without-token"
stat -c '%a %U' ${state}/archive.sqlite3 > "$T/database-mode"
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
for d in /etc /opt /usr/local /var/lib /var/cache /var/log; do
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
echo "== the installed unit, manual page and completions"
cmp /etc/systemd/system/archivectl.service ${q(UNIT)}
systemd-analyze verify /etc/systemd/system/archivectl.service > "$T/verify.out" 2>&1
systemd-analyze security --offline=yes --threshold=20 --no-pager /etc/systemd/system/archivectl.service > "$T/security.out" 2>&1
env -u MANPATH man -w archivectl > "$T/man.out"
env -u MANPATH man archivectl 2>/dev/null | head -5 > "$T/man-page.out"
bash --norc --noprofile -c '. ${BASH_COMPLETION}; __load_completion archivectl && complete -p archivectl' > "$T/bash.out"
zsh -f -c 'autoload -Uz compinit && compinit -u -D && print -r -- "$_comps[archivectl]"' > "$T/zsh.out"
echo "== step 4: systemctl enable --now, by hand"
install -d -o ${q(user)} -g ${q(group)} -m ${values.get('StateDirectoryMode') ?? '0755'} ${q(state)}
install -d -o ${q(user)} -g ${q(group)} -m ${values.get('CacheDirectoryMode') ?? '0755'} ${q(cache)}
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

  it('installs the unit the package ships: verify says nothing, security rates it at most 2.0', () => {
    expect(file('verify.out').trim()).toBe('');
    const level = /Overall exposure level for archivectl\.service: (\d+\.\d) OK/.exec(file('security.out'));
    expect(level, file('security.out')).not.toBeNull();
    expect(Number(level?.[1])).toBeLessThanOrEqual(2.0);
  });

  it('puts the manual page and the completions where man, bash and zsh find them', () => {
    // man names the page the link in /usr/local/share/man/man1 leads to.
    expect(file('man.out').trim()).toBe('/opt/archivectl/lib/node_modules/archivectl/man/archivectl.1');
    expect(file('man-page.out')).toMatch(/ARCHIVECTL\(1\)/);
    expect(file('bash.out').trim()).toBe('complete -o filenames -F _archivectl archivectl');
    expect(file('zsh.out').trim()).toBe('_archivectl');
  });

  it("the ExecStart= line starts the daemon as the service's user in the sandbox, on the configured database", () => {
    const log = file('serve.log');
    // UMask=0077: the database it made is the service user's alone.
    expect(file('database-mode').trim()).toBe('600 archive');
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
