// systemd's socket activation (sd_listen_fds(3)): archivectl.socket passes the listening socket as fd 3 on,
// so new connections queue while the service restarts.

const SD_LISTEN_FDS_START = 3;

/** The descriptors systemd passed to this process, or []; the variables are removed from `env` either way. */
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
