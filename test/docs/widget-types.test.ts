import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/docs-build.ts';
import { buildWidgetTypes } from '../../scripts/docs-types.ts';

// A host project's file, as a TypeScript user of the package writes it. The @ts-expect-error
// lines prove the types are real: each fails to compile if the type behind it were `any`.
const CONSUMER = `
import 'estate-embed/widget';
import type { EstateListings, EnquirySuccessDetail, ListingSummary, ListingSelectDetail } from 'estate-embed/widget';

const listings = document.createElement('estate-listings');
const same: EstateListings = listings;
const pageSize: number = same.pageSize;
const shown: ListingSummary[] | null = listings.listings;
const form = document.querySelector('estate-enquiry');
form?.addEventListener('estate-enquiry-success', (event) => {
  const detail: EnquirySuccessDetail = event.detail;
  const id: string = detail.originalId;
  void id;
});
listings.addEventListener('estate-listing-select', (event) => {
  const detail: ListingSelectDetail = event.detail;
  void detail;
  event.preventDefault();
});
const detailElement = document.createElement('estate-listing');
detailElement.listingId = 42;
// @ts-expect-error pageSize is a number
listings.pageSize = 'twelve';
// @ts-expect-error no such property
detailElement.notAProperty = true;
form?.addEventListener('estate-enquiry-success', (event) => {
  // @ts-expect-error the success detail has no email (no personal data in events)
  void event.detail.email;
});
void pageSize; void shown;
import type { LeadSentDetail, LeadType, ListingViewDetail } from 'estate-embed/widget';
document.addEventListener('estate-lead-sent', (event) => {
  const lead: LeadSentDetail = event.detail;
  const kind: LeadType = lead.leadType;
  // @ts-expect-error no personal data in the analytics events
  void event.detail.email;
  void kind;
});
document.addEventListener('estate-listing-view', (event) => {
  const seen: ListingViewDetail = event.detail;
  const id: number = seen.listingId;
  void id;
});

// One element on its own, as a page that shows only a contact form imports it.
import 'estate-embed/widget/enquiry';
import type { EstateEnquiry as OnlyTheForm } from 'estate-embed/widget/enquiry';
import type { EstateListings as OnlyTheList } from 'estate-embed/widget/listings';
const contact: OnlyTheForm = document.createElement('estate-enquiry');
const agentId: number | undefined = contact.agentId;
const list: OnlyTheList | null = document.querySelector('estate-listings');
// @ts-expect-error agentId is a number
contact.agentId = 'forty-two';
void agentId; void list;

import { registerTranslation, type Translation } from 'estate-embed/widget/localize';
const fewWords: Translation = { $code: 'en-AU', enquiry: { labelSubmit: 'Ask the agent' } };
registerTranslation(fewWords);
// @ts-expect-error no such word
registerTranslation({ $code: 'fr', enquiry: { labelNom: 'Nom' } });
`;

describe('estate-embed/widget types', () => {
  let dir: string;
  beforeAll(() => {
    // Inside the project so 'lit' resolves from its node_modules, as it would in a host project.
    mkdirSync(join(projectRoot, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(projectRoot, '.tmp', 'types-'));
    const pkg = join(dir, 'node_modules', 'estate-embed');
    mkdirSync(pkg, { recursive: true });
    // The real package.json (its `exports` is what is under test) and freshly built declarations.
    copyFileSync(join(projectRoot, 'package.json'), join(pkg, 'package.json'));
    buildWidgetTypes(join(pkg, 'dist', 'types'));
    // A host project has a package.json of its own. Without one, the nearest is estate-embed's, and
    // TypeScript resolves 'estate-embed/widget' as a self-reference to this checkout's dist/ instead.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'host-project', private: true, type: 'module' }));
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    // A package of its own: without it, 'estate-embed' would resolve to this project (self-reference).
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'host-site', private: true, type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          strict: true,
          noEmit: true,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a host project type-checks against the package exports: tag map, properties and typed events', () => {
    const result = spawnSync(join(projectRoot, 'node_modules', '@typescript', 'native', 'bin', 'tsc'), ['-p', dir], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 60_000);
});
