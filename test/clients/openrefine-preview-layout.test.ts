// The preview page as a client shows it: in a viewport of exactly the size the manifest asks
// for (OpenRefine's iframe), every value must stand on the line of its own label, whatever the
// labels and values hold (a label that wraps, a long unbroken value, many alternative names),
// and nothing may stick out sideways. Measured in a real browser (Debian's chromium, headless,
// driven by playwright-core): each label's and value's getBoundingClientRect, and the first line
// box of each, for every record of every register, through the 0.2 and the 1.0-draft services.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySettings, dataOf, loadCatalog } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const KINDS = ['actors', 'places', 'keywords'] as const;
/** Every wait is bounded: no step of the browser may hang the suite. */
const STEP_MS = 20_000;
const CHROMIUM = systemTool('chromium', 'chromium');
const { cli, daemon, api, t } = useDaemonWithTokens();
let browser: Browser | undefined;

const long = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');

beforeAll(async () => {
  await loadCatalog(cli(), 'preview-layout.json', {
    actors: [
      {
        name: 'Schiller, Johann Christoph Friedrich von',
        type: 'person',
        alternative_names: [
          'Friedrich von Schiller',
          'Friedrich Schiller',
          'Schiller, Friedrich',
          'Johann Christoph Friedrich Schiller',
          'Schiller, J. C. F.',
          'Шиллер, Фридрих',
          'シラー',
          'Schiller, Friedrich von (Dichter, Philosoph und Historiker)',
        ],
        date_start: '1759-11-10',
        date_end: '1805-05-09',
        gnd: '118607626',
        comment: long('Dramatist', 60),
      },
      { name: 'Goethe', type: 'person' },
      {
        name: 'Unbroken',
        type: 'corporate_body',
        alternative_names: ['x'.repeat(250)],
        comment: 'y'.repeat(400),
      },
    ],
    places: [
      {
        name: 'Zürich',
        alternative_names: ['Zurich', 'Zurigo', 'Turicum', 'Züri'],
        city: 'Zürich',
        state: 'Zürich',
        address: 'Stadthaus, Stadthausquai 17, 8001 Zürich (Eingang über den Innenhof, zweiter Stock links)',
        country_code: 'CH',
        location: '47.37 8.54',
        gnd: '4068038-8',
        geonames: '2657896',
        comment: long('Limmat', 40),
      },
      { name: 'Nowhere', address: 'z'.repeat(500) },
    ],
    keywords: [{ name: 'Letters', gnd: '4008849-2' }, 'Bare keyword'],
  });
  await applySettings(cli(), { public_access: true, public_api: false });
  if (CHROMIUM.skip !== null) return;
  browser = await chromium.launch({
    executablePath: pathOf(CHROMIUM, 'chromium'),
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: STEP_MS,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface Row {
  label: string;
  labelTop: number;
  valueTop: number;
  labelLineTop: number;
  valueLineTop: number;
  labelBottom: number;
  valueBottom: number;
  right: number;
}

/** Each label of the page with its value: their boxes and the top of their first line. */
function measure(page: Page): Promise<{ rows: Row[]; scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => {
    const firstLineTop = (el: Element) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getClientRects()[0]?.top ?? Number.NaN;
    };
    const rows = [...document.querySelectorAll('dt')].map((dt) => {
      const dd = dt.nextElementSibling;
      if (!dd || dd.tagName !== 'DD') throw new Error(`no value beside ${dt.textContent ?? ''}`);
      const l = dt.getBoundingClientRect();
      const v = dd.getBoundingClientRect();
      return {
        label: dt.textContent ?? '',
        labelTop: l.top,
        valueTop: v.top,
        labelLineTop: firstLineTop(dt),
        valueLineTop: firstLineTop(dd),
        labelBottom: l.bottom,
        valueBottom: v.bottom,
        right: Math.max(l.right, v.right),
      };
    });
    return { rows, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth };
  });
}

/** What is wrong with the layout of one preview (nothing: []). */
function layoutProblems(where: string, m: Awaited<ReturnType<typeof measure>>): string[] {
  const out: string[] = [];
  let below = -Infinity;
  for (const r of m.rows) {
    if (Math.abs(r.labelTop - r.valueTop) > 1)
      out.push(`${where} ${r.label}: label at ${r.labelTop}, value at ${r.valueTop}`);
    if (Math.abs(r.labelLineTop - r.valueLineTop) > 1)
      out.push(`${where} ${r.label}: first lines at ${r.labelLineTop} and ${r.valueLineTop}`);
    if (Math.min(r.labelTop, r.valueTop) < below - 0.5) out.push(`${where} ${r.label}: overlaps the row above`);
    below = Math.max(r.labelBottom, r.valueBottom);
    if (r.right > m.innerWidth + 0.5) out.push(`${where} ${r.label}: reaches ${r.right}px of ${m.innerWidth}`);
  }
  if (m.scrollWidth > m.innerWidth) out.push(`${where}: ${m.scrollWidth}px wide in a ${m.innerWidth}px viewport`);
  return out;
}

describe(`the preview page in the manifest's viewport${CHROMIUM.skip ? ` (skipped: ${CHROMIUM.skip})` : ''}`, () => {
  it.skipIf(CHROMIUM.skip !== null)(
    'shows every value on the line of its label, for every record of every register (0.2 and 1.0-draft)',
    async () => {
      const context = await (browser as Browser).newContext();
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_MS);
        const problems: string[] = [];
        let pages = 0;
        let labels = 0;
        const seen = new Set<string>();
        for (const kind of KINDS) {
          const v02 = (await api.get(`/api/${kind}/reconcile`)).body as {
            preview: { url: string; width: number; height: number };
          };
          const v1 = (await api.get(`/api/${kind}/reconcile/1.0-draft`)).body as {
            preview: { width: number; height: number };
          };
          const records = dataOf<{ id: number }[]>(await api.get(`/api/${kind}?perPage=100`, t.user));
          for (const { id } of records) {
            const previews: [string, { width: number; height: number }][] = [
              [v02.preview.url.replace('{{id}}', String(id)), v02.preview],
              [`${daemon().url}/api/${kind}/reconcile/1.0-draft/preview?id=${id}`, v1.preview],
            ];
            for (const [url, size] of previews) {
              await page.setViewportSize({ width: size.width, height: size.height });
              const r = await page.goto(url, { timeout: STEP_MS, waitUntil: 'load' });
              expect(r?.status(), url).toBe(200);
              const m = await measure(page);
              expect(m.innerWidth, url).toBe(size.width);
              problems.push(...layoutProblems(`${kind} ${id} ${url.includes('1.0-draft') ? '1.0' : '0.2'}`, m));
              pages++;
              labels += m.rows.length;
              for (const row of m.rows) seen.add(row.label);
            }
          }
        }
        expect(problems).toEqual([]);
        expect(pages).toBe(2 * 7);
        expect(labels).toBe(2 * 18);
        // The labels that wrap or sit beside long values were among those measured.
        for (const label of ['Alternative names', 'City', 'Address', 'Comment', 'GND', 'Start date'])
          expect([...seen]).toContain(label);
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});
