// BENCH_ONLY=refusal npm run bench (and part of the full run): how long a forged value for a
// known token id takes to be refused beside one for an unknown id (issue: timing must not say
// whether an id exists). Bursts of 10 values at once, each burst from a fresh 127.0.0.x address
// so the failure budgets (10 per id and address) are never the difference; kinds alternate.
import http from 'node:http';
import { median, ms, startDaemon } from './daemon.js';

const ROUNDS = Number(process.env.BENCH_REFUSAL_ROUNDS ?? 12);
const BURST = 10;

function refuse(url, value, localAddress) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    http
      .get(url, { agent: false, localAddress, headers: { Authorization: `Bearer ${value}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: ms(t0) }));
      })
      .on('error', () => resolve({ status: 0, ms: ms(t0) }));
  });
}

export async function runRefusalTiming({ bin, config, env, token, formatModule }) {
  const { checksum, randomBase62 } = await import(formatModule);
  const forged = (id) => {
    const secret = randomBase62(40);
    return `arc_${id}${secret}${checksum(id + secret)}`;
  };
  const { proc, url } = await startDaemon(config, env, bin);
  try {
    const target = `${url}/api/actors?perPage=25`;
    const known = token.slice(4, 12);
    await refuse(target, token, '127.0.0.1'); // in use: its true value is verified and cached
    const times = { known: [], unknown: [] };
    const lasts = { known: [], unknown: [] };
    const statuses = {};
    for (let round = 0; round < ROUNDS; round++) {
      const kinds = round % 2 === 0 ? ['known', 'unknown'] : ['unknown', 'known'];
      for (const [k, kind] of kinds.entries()) {
        const address = `127.0.${10 + Math.floor(round / 100)}.${(round % 100) * 2 + k + 2}`;
        const id = kind === 'known' ? known : randomBase62(8);
        const answers = await Promise.all(Array.from({ length: BURST }, () => refuse(target, forged(id), address)));
        for (const a of answers) {
          times[kind].push(a.ms);
          statuses[`${kind} ${a.status}`] = (statuses[`${kind} ${a.status}`] ?? 0) + 1;
        }
        lasts[kind].push(Math.max(...answers.map((a) => a.ms)));
      }
    }
    const line = (kind) =>
      `${kind.padEnd(8)} median ${median(times[kind]).toFixed(1)} ms, last of a burst (median) ${median(lasts[kind]).toFixed(1)} ms`;
    console.log(`\nrefusal timing: ${ROUNDS} bursts of ${BURST} forged values per kind, one address per burst`);
    console.log(line('known'));
    console.log(line('unknown'));
    const ratio = median(times.known) / median(times.unknown);
    console.log(`known / unknown median ${ratio.toFixed(3)}; answers ${JSON.stringify(statuses)}`);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
}
