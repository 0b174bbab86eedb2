// Whether a file descriptor is systemd's journal stream: JOURNAL_STREAM holds the device and
// inode of the stream systemd connected to stdout and stderr (systemd.exec(5)); a descriptor
// redirected elsewhere (a pipe, a file) keeps the variable but not the match. Lines written there
// may start with their syslog priority (`<3>`, sd-daemon(3)), which journald keeps as the entry's.
import { fstatSync } from 'node:fs';

export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const match = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (!match) return false;
  try {
    const stat = fstatSync(fd, { bigint: true });
    return stat.dev === BigInt(match[1] as string) && stat.ino === BigInt(match[2] as string);
  } catch {
    return false;
  }
}
