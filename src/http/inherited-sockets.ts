// systemd's socket activation (sd_listen_fds(3)): the unit's archivectl.socket holds the listening
// socket and passes it as file descriptor 3 (and on), with LISTEN_PID naming the process it is
// for and LISTEN_FDS how many. While the service restarts, the kernel queues new connections on
// that socket instead of refusing them.

const SD_LISTEN_FDS_START = 3;

/**
 * The descriptors systemd passed to this process, or [] when it passed none (started by hand,
 * or the variables were meant for another process). The variables are removed from `env` either
 * way, as sd_listen_fds(unset_environment) does, so no child process takes them as its own.
 */
export function takeInheritedSockets(env: NodeJS.ProcessEnv, pid: number): number[] {
  const forPid = env.LISTEN_PID;
  const count = env.LISTEN_FDS;
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  if (forPid === undefined || !/^\d+$/.test(forPid) || Number(forPid) !== pid) return [];
  const n = /^\d+$/.test(count ?? '') ? Number(count) : 0;
  return Array.from({ length: n }, (_, i) => SD_LISTEN_FDS_START + i);
}
