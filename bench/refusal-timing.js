// BENCH_ONLY=refusal npm run bench (and part of the full run): how long a forged value is refused
// for the id of a token in use (verified and cached), of a token never used on this daemon, of a
// revoked token, and for an unknown id (timing must not say whether an id exists, nor what state
// it is in: within 1.1x of each other). Bursts of 10 values at once, each
// burst from a fresh 127.0.0.x address so the failure budgets (10 per id and address) are never
// the difference; the kinds take turns, in a rotating order.
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

export async function runRefusalTiming({ bin, config, env, token, unused, revoked, formatModule }) {
  const { checksum, randomBase62 } = await import(formatModule);
  const forged = (id) => {
    const secret = randomBase62(40);
    return `arc_${id}${secret}${checksum(id + secret)}`;
  };
  const { proc, url } = await startDaemon(config, env, bin);
  try {
    const target = `${url}/api/actors?perPage=25`;
    await refuse(target, token, '127.0.0.1'); // in use: its true value is verified and cached
    const ids = {
      'in use': () => token.slice(4, 12),
      unused: () => unused.slice(4, 12),
      unknown: () => randomBase62(8),
      revoked: () => revoked.slice(4, 12),
    };
    const names = Object.keys(ids);
    const times = Object.fromEntries(names.map((n) => [n, []]));
    const lasts = Object.fromEntries(names.map((n) => [n, []]));
    const statuses = {};
    for (let round = 0; round < ROUNDS; round++) {
      const kinds = names.map((_, i) => names[(i + round) % names.length]);
      for (const [k, kind] of kinds.entries()) {
        const address = `127.0.${10 + Math.floor(round / 60)}.${(round % 60) * names.length + k + 2}`;
        const id = ids[kind]();
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
    for (const kind of names) console.log(line(kind));
    const ratio = (kind) => (median(times[kind]) / median(times.unknown)).toFixed(3);
    const medians = names.map((kind) => median(times[kind]));
    const spread = Math.max(...medians) / Math.min(...medians);
    console.log(
      `median / unknown's: in use ${ratio('in use')}, unused ${ratio('unused')}, revoked ${ratio('revoked')}; ` +
        `largest / smallest median ${spread.toFixed(3)} (target <= 1.1: ${spread <= 1.1 ? 'met' : 'NOT met'}); ` +
        `answers ${JSON.stringify(statuses)}`,
    );
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
}
