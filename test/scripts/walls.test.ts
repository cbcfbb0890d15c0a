// The import walls (.dependency-cruiser.cjs) as `npm test` runs them: the tree keeps them, and each
// wall, broken on purpose in a scratch tree, fails the run with the offending import named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWalls } from '../../scripts/walls.mjs';

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A scratch project with these files (path → source), checked by the real config. */
function checkScratch(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'estate-walls-'));
  scratchDirs.push(dir);
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', allowImportingTsExtensions: true } }),
    ...files,
  };
  for (const [path, source] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const folders = [...new Set(Object.keys(files).map((path) => path.split('/')[0]!))];
  return checkWalls(folders, { cwd: dir });
}

describe('import walls', () => {
  it('hold in this tree', () => {
    const { code, output } = checkWalls();
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  }, 60_000);

  it('a scratch tree that keeps them passes (the scratch set-up itself breaks nothing)', () => {
    const { code, output } = checkScratch({
      'server/listings/feature.ts': "import { helper } from './helper.ts';\nexport const x = helper;\n",
      'server/listings/helper.ts': 'export const helper = 1;\n',
    });
    expect(output).toMatch(/no dependency violations found \(2 modules/);
    expect(code).toBe(0);
  }, 60_000);

  it('let server/pages, and only it, reach widget/ (it renders the elements)', () => {
    const { code, output } = checkScratch({
      'server/pages/render.ts': "import { x } from '../../widget/shared/x.ts';\nexport const y = x;\n",
      'widget/shared/x.ts': 'export const x = 1;\n',
    });
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  }, 60_000);

  const broken: Array<[rule: string, files: Record<string, string>, offending: string]> = [
    [
      'no-cycles',
      {
        'server/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
        'server/b.ts': "import type { a } from './a.ts';\nexport const b = 1;\nexport type A = typeof a;\n",
      },
      'server/a.ts',
    ],
    [
      'no-cycles-in-widget',
      { 'widget/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n", 'widget/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n" },
      'widget/a.ts',
    ],
    [
      'widget-not-server',
      { 'widget/thing.ts': "import { x } from '../server/x.ts';\nexport const y = x;\n", 'server/x.ts': 'export const x = 1;\n' },
      'widget/thing.ts → server/x.ts',
    ],
    [
      'server-not-widget',
      { 'server/listings/cards.ts': "import { x } from '../../widget/shared/x.ts';\nexport const y = x;\n", 'widget/shared/x.ts': 'export const x = 1;\n' },
      'server/listings/cards.ts → widget/shared/x.ts',
    ],
    [
      'simulator-from-entry-tests-bench',
      {
        'server/listings/sync.ts': "import { startSimulator } from '../../crm-sim/simulator.ts';\nexport const s = startSimulator;\n",
        'crm-sim/simulator.ts': 'export const startSimulator = 1;\n',
      },
      'server/listings/sync.ts → crm-sim/simulator.ts',
    ],
    [
      'sim-stands-alone',
      {
        'crm-sim/views.ts': "import { toPublic } from '../server/crm/public-fields.ts';\nexport const v = toPublic;\n",
        'server/crm/public-fields.ts': 'export const toPublic = 1;\n',
      },
      'crm-sim/views.ts → server/crm/public-fields.ts',
    ],
    [
      'runtime-imports-nothing-above',
      {
        'server/runtime/config.ts': "import type { S } from '../enquiries/worker.ts';\nexport type C = S;\n",
        'server/enquiries/worker.ts': 'export type S = number;\n',
      },
      'server/runtime/config.ts → server/enquiries/worker.ts',
    ],
    [
      'http-edge-on-runtime-only',
      {
        'server/http/app.ts': "import { storeAnswers } from '../store/store.ts';\nexport const a = storeAnswers;\n",
        'server/store/store.ts': 'export const storeAnswers = 1;\n',
      },
      'server/http/app.ts → server/store/store.ts',
    ],
    [
      'features-below-cluster',
      {
        'server/listings/webhook.ts': "import type { Inbox } from '../cluster/webhook-inbox.ts';\nexport type W = Inbox;\n",
        'server/cluster/webhook-inbox.ts': 'export type Inbox = number;\n',
      },
      'server/listings/webhook.ts → server/cluster/webhook-inbox.ts',
    ],
    [
      'cluster-below-compose',
      {
        'server/cluster/shared-sync.ts': "import { startAgency } from '../compose/agency.ts';\nexport const s = startAgency;\n",
        'server/compose/agency.ts': 'export const startAgency = 1;\n',
      },
      'server/cluster/shared-sync.ts → server/compose/agency.ts',
    ],
    [
      'compose-below-ops',
      {
        'server/compose/agency-set.ts': "import { relayStatus } from '../ops/relays.ts';\nexport const s = relayStatus;\n",
        'server/ops/relays.ts': 'export const relayStatus = 1;\n',
      },
      'server/compose/agency-set.ts → server/ops/relays.ts',
    ],
    [
      'ops-below-entry-points',
      { 'server/ops/cli.ts': "import { main } from '../main.ts';\nexport const m = main;\n", 'server/main.ts': 'export const main = 1;\n' },
      'server/ops/cli.ts → server/main.ts',
    ],
    [
      'tables-through-repositories',
      {
        'server/ops/status.ts': "import { tablesOf } from '../store/tables.ts';\nexport const t = tablesOf;\n",
        'server/store/tables.ts': 'export const tablesOf = 1;\n',
      },
      'server/ops/status.ts → server/store/tables.ts',
    ],
    [
      'sqlite-only-in-store',
      { 'server/ops/backup.ts': "import Database from 'better-sqlite3';\nexport const d = Database;\n" },
      'server/ops/backup.ts → better-sqlite3',
    ],
    [
      'crm-behind-ports',
      {
        'server/listings/sync.ts': "import { allPages } from '../crm/client.ts';\nexport const p = allPages;\n",
        'server/crm/client.ts': 'export const allPages = 1;\n',
      },
      'server/listings/sync.ts → server/crm/client.ts',
    ],
  ];
  for (const [rule, files, offending] of broken) {
    it(`fail the run when ${rule} is broken, naming the import`, () => {
      const { code, output } = checkScratch(files);
      expect(code).not.toBe(0);
      expect(output).toContain(rule);
      expect(output).toContain(offending);
    }, 60_000);
  }

  it('fail the run on a loop of type imports in widget/ too (the translation registry as it was)', () => {
    const { code, output } = checkScratch({
      'widget/shared/localize.ts':
        "import type { EnquiryStrings } from '../enquiry/strings.ts';\nexport interface Sections { enquiry: EnquiryStrings }\nexport function registerBuiltInTranslation(words: Partial<Sections>): void { void words; }\n",
      'widget/enquiry/strings.ts':
        "import { registerBuiltInTranslation } from '../shared/localize.ts';\nexport interface EnquiryStrings { labelName: string }\nregisterBuiltInTranslation({ enquiry: { labelName: 'Full name' } });\n",
    });
    expect(code).not.toBe(0);
    expect(output).toContain('no-cycles-in-widget');
    expect(output).toContain('widget/shared/localize.ts');
  }, 60_000);
});
