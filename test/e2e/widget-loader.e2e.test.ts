// widget.js as a loader, in Chromium: it fetches an element's code only when the tag appears
// (also when the tag is added after the page loaded), and under a pinned tag (SRI on widget.js)
// it refuses a chunk whose bytes differ from the build's by even one statement, without running it.
// The release build (vite.config.ts), served by a real relay or, for the tampered copy, by a
// plain static server on the page's own origin.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetScriptTags } from '../../server/ops/script-tags.ts';
import { widgetBundleReader } from '../../server/http/widget-assets.ts';
import { serveFolder, startHostSiteRig, watchedPage, type HostSiteRig, type StaticSite } from '../support/browser.ts';

interface ChunkManifest {
  /** Tag → its chunk files (widget-….js), its own module last. */
  elements: Record<string, string[]>;
  /** Chunk file → its SHA-256 (base64). */
  integrity: Record<string, string>;
  /** Tags fetched once near the viewport. */
  near: string[];
}

/** The manifest the build wrote into widget.js (files by index, each with its SHA-256), by file name. */
function chunkManifest(widgetDir: string): ChunkManifest {
  const loader = readFileSync(join(widgetDir, 'widget.js'), 'utf8');
  const start = loader.indexOf('{"files":');
  expect(start, 'widget.js carries the chunk manifest').toBeGreaterThanOrEqual(0);
  const end = loader.indexOf(']}', loader.indexOf('"near":', start)) + 2;
  const written = JSON.parse(loader.slice(start, end)) as { files: Array<[string, string]>; elements: Record<string, number[]>; near: string[] };
  // A chunk's file is named after its SHA-256: widget-<name>.<its first 8 characters, + and / as _>.js.
  const fileName = ([name, sha256]: [string, string]) => `widget-${name}.${sha256.slice(0, 8).replace(/\W/g, '_')}.js`;
  const file = (index: number) => fileName(written.files[index]!);
  return {
    elements: Object.fromEntries(Object.entries(written.elements).map(([tag, indexes]) => [tag, indexes.map(file)])),
    integrity: Object.fromEntries(written.files.map((entry) => [fileName(entry), entry[1]])),
    near: written.near,
  };
}

let rig: HostSiteRig;
let tamperedDir: string;
let tamperedSite: StaticSite;
let manifest: ChunkManifest;
let tamperedChunk: string;

beforeAll(async () => {
  rig = await startHostSiteRig({ pageDirPrefix: 'estate-loader-' });
  manifest = chunkManifest(rig.widgetDir);
  const pinned = widgetScriptTags(rig.relay.url, rig.widgetDir).pinned!;
  const first = (await rig.listingsPage('pageSize=1')).items[0]!;
  writeFileSync(join(rig.pageDir, 'empty.html'), `<!doctype html><title>Later</title>${pinned.tag}<main></main>`);
  writeFileSync(
    join(rig.pageDir, 'grid.html'),
    `<!doctype html><title>Grid</title>${pinned.tag}<main><estate-listings page-size="2"></estate-listings></main>`,
  );
  writeFileSync(
    join(rig.pageDir, 'filters.html'),
    `<!doctype html><title>Search</title>${pinned.tag}<main><estate-listings page-size="2" filters></estate-listings></main>`,
  );
  // Similar homes under a page taller than the viewport (and 300 px beyond it).
  writeFileSync(
    join(rig.pageDir, 'below.html'),
    `<!doctype html><title>Below</title>${pinned.tag}<main><div style="height: 3000px"></div>` +
      `<estate-similar-listings relay="${rig.relay.url}" listing-id="${first.id}"></estate-similar-listings></main>`,
  );
  writeFileSync(
    join(rig.pageDir, 'form.html'),
    `<!doctype html><title>Form</title>${pinned.tag}<main><estate-enquiry listing-id="${first.id}"></estate-enquiry></main>`,
  );
  writeFileSync(
    join(rig.pageDir, 'define.html'),
    `<!doctype html><title>Named</title>${pinned.tag.replace('<script ', '<script data-define="estate-listings estate-nope" ')}<main></main>`,
  );

  // The same build on another host, one chunk changed: the one the enquiry form imports first
  // (Lit and the shared code), so the check must cover static imports, not just the entry.
  tamperedDir = mkdtempSync(join(tmpdir(), 'estate-tampered-'));
  cpSync(rig.widgetDir, tamperedDir, { recursive: true });
  tamperedChunk = manifest.elements['estate-enquiry']![0]!;
  expect(
    createHash('sha256')
      .update(readFileSync(join(tamperedDir, tamperedChunk)))
      .digest('base64'),
    'a chunk is named after its SHA-256',
  ).toBe(manifest.integrity[tamperedChunk]);
  const original = readFileSync(join(tamperedDir, tamperedChunk), 'utf8');
  writeFileSync(join(tamperedDir, tamperedChunk), `${original}\nglobalThis.tamperedChunkRan = true;\n`);
  const loaderIntegrity = widgetBundleReader(tamperedDir)()!.integrity;
  writeFileSync(
    join(tamperedDir, 'form.html'),
    `<!doctype html><title>Form</title><script type="module" src="/widget.js" integrity="${loaderIntegrity}" crossorigin="anonymous"></script>` +
      `<estate-enquiry agent-id="450102" relay="${rig.relay.url}"></estate-enquiry>`,
  );
  tamperedSite = await serveFolder(tamperedDir);
}, 120_000);

afterAll(async () => {
  await tamperedSite?.close();
  await rig?.close();
  if (tamperedDir) rmSync(tamperedDir, { recursive: true, force: true });
});

describe('widget.js, the loader', () => {
  it('fetches nothing until a tag appears, then upgrades an element added after load, fetching only its chunks', async () => {
    const { context, page, problems } = await watchedPage(rig.browser);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(rig.relay.url) && /\/widget[^/]*\.js$/.test(request.url())) scripts.push(new URL(request.url()).pathname.slice(1));
    });
    await page.goto(`${rig.site.origin}/empty.html`);
    await page.waitForLoadState('networkidle');
    expect(
      scripts.filter((file) => file.startsWith('widget-')),
      'no element on the page yet',
    ).toEqual([]);

    await page.evaluate((relay) => {
      const form = document.createElement('estate-enquiry');
      form.setAttribute('agent-id', '450102');
      form.setAttribute('relay', relay);
      document.querySelector('main')!.append(form);
    }, rig.relay.url);
    await page.waitForFunction(() => customElements.get('estate-enquiry') !== undefined);
    await page.getByRole('textbox', { name: 'Full name' }).waitFor();

    const fetched = scripts.filter((file) => file.startsWith('widget-')).sort();
    expect(fetched).toEqual([...manifest.elements['estate-enquiry']].sort());
    expect(await page.evaluate(() => customElements.get('estate-listings'))).toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fetches an element that sits below the page (similar homes) only once it comes near the viewport', async () => {
    expect(manifest.near).toContain('estate-similar-listings');
    const { context, page, problems } = await watchedPage(rig.browser);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (/\/widget-[^/]*\.js$/.test(request.url())) scripts.push(new URL(request.url()).pathname.slice(1));
    });
    await page.goto(`${rig.site.origin}/below.html`);
    await page.waitForLoadState('networkidle');
    expect(scripts, 'nothing fetched for an element 3000 px down').toEqual([]);
    expect(await page.evaluate(() => customElements.get('estate-similar-listings'))).toBeUndefined();
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    await page.waitForFunction(() => customElements.get('estate-similar-listings') !== undefined);
    expect(new Set(scripts), 'then its chunks, through the checked manifest').toEqual(new Set(manifest.elements['estate-similar-listings']));
    expect(problems).toEqual([]);
    await context.close();
  });

  it("fetches an enquiry form's logic (checks, send, kept submission) only once a visitor starts on the form, through the checked manifest", async () => {
    const logic = manifest.elements['estate-enquiry-logic']!.at(-1)!;
    const { context, page, problems } = await watchedPage(rig.browser);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (/\/widget-[^/]*\.js$/.test(request.url())) scripts.push(new URL(request.url()).pathname.slice(1));
    });
    await page.goto(`${rig.site.origin}/form.html`);
    await page.waitForFunction(() => document.querySelector('estate-enquiry')?.shadowRoot?.querySelector('form') != null);
    await page.waitForLoadState('networkidle');
    expect(new Set(scripts), 'the form shown: its own chunks only').toEqual(new Set(manifest.elements['estate-enquiry']));
    expect(scripts).not.toContain(logic);

    // The visitor starts: the logic comes, and a wrong e-mail address is told once they leave the field.
    const email = page.locator('estate-enquiry #email');
    await email.fill('someone@nowhere');
    await email.blur();
    await page.waitForFunction(() => document.querySelector('estate-enquiry')?.shadowRoot?.querySelector('#email-error:not([hidden])') != null);
    expect(scripts.filter((script) => script === logic)).toHaveLength(1);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fetches the elements named in data-define before their tags appear, and names an unknown one', async () => {
    const { context, page, problems } = await watchedPage(rig.browser);
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.goto(`${rig.site.origin}/define.html`);
    await page.waitForFunction(() => customElements.get('estate-listings') !== undefined);
    expect(await page.evaluate(() => document.querySelector('estate-listings'))).toBeNull();
    expect(await page.evaluate(() => customElements.get('estate-enquiry'))).toBeUndefined();
    expect(warnings.some((text) => text.includes('estate-nope'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('opens the in-place detail of a grid (its own copy of the listing parts) with the detail and form fetched through the checked manifest', async () => {
    const { context, page, problems } = await watchedPage(rig.browser);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (/\/widget-[^/]*\.js$/.test(request.url())) scripts.push(new URL(request.url()).pathname.slice(1));
    });
    await page.goto(`${rig.site.origin}/grid.html`);
    const firstCard = page.locator('estate-listings [part~="card-link"]').first();
    await firstCard.waitFor();
    expect(scripts.sort(), 'the grid fetches its own chunks only').toEqual([...manifest.elements['estate-listings']].sort());
    const address = (await firstCard.textContent())!.trim();
    await firstCard.click();
    await expect.poll(() => page.locator('estate-listing [part~="title"]').textContent()).toBe(address);
    await page.getByRole('textbox', { name: 'Full name' }).waitFor();
    const wanted = new Set([...manifest.elements['estate-listings'], ...manifest.elements['estate-listing']]);
    expect(new Set(scripts), 'then the detail and its form, every one in the manifest').toEqual(wanted);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('fetches the filter bar with the grid chunks when the tag has filters, and shows the bar in the first frame that shows the grid', async () => {
    const barFiles = manifest.elements['estate-listings[filters]'];
    expect(barFiles, 'the manifest has the filter bar variant').toBeDefined();
    const bar = barFiles!.at(-1)!;
    expect(manifest.elements['estate-listings'], 'a grid without a bar does not fetch it').not.toContain(bar);
    const { context, page, problems } = await watchedPage(rig.browser);
    const scripts: string[] = [];
    const events: string[] = [];
    page.on('requestfinished', (request) => events.push(`finished ${new URL(request.url()).pathname.slice(1)}`));
    page.on('request', (request) => {
      events.push(`started ${new URL(request.url()).pathname.slice(1)}`);
      if (/\/widget-[^/]*\.js$/.test(request.url())) scripts.push(new URL(request.url()).pathname.slice(1));
    });
    // Every frame until the grid shows: whether the bar was there in the first frame that showed the grid.
    await page.addInitScript(() => {
      const watch = () => {
        const root = document.querySelector('estate-listings')?.shadowRoot;
        if (root?.querySelector('[part~="list"]')) (globalThis as { firstFrame?: unknown }).firstFrame = root.querySelector('[part~="filters"]') !== null;
        else requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    });
    await page.goto(`${rig.site.origin}/filters.html`);
    await page.locator('estate-listings [part~="card-link"]').first().waitFor();
    await page.getByRole('combobox', { name: 'Bedrooms' }).waitFor();
    expect(new Set(scripts)).toEqual(new Set(barFiles));
    // Fetched with the grid's chunks, not by the grid once its code has come and run.
    const grid = manifest.elements['estate-listings']!.at(-1)!;
    expect(events.indexOf(`started ${bar}`), 'the bar is asked for before the grid code has arrived').toBeLessThan(events.indexOf(`finished ${grid}`));
    expect(events.indexOf(`started ${bar}`)).toBeGreaterThanOrEqual(0);
    expect(await page.evaluate(() => (globalThis as { firstFrame?: unknown }).firstFrame)).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('under a pinned tag, refuses a tampered chunk and never runs it (the untampered build works)', async () => {
    const { context, page, problems } = await watchedPage(rig.browser);
    await page.goto(`${tamperedSite.origin}/form.html`);
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => document.querySelector('link[rel="modulepreload"]') !== null);
    await expect.poll(() => problems.some((problem) => problem.includes(tamperedChunk) && /integrity/i.test(problem)), { timeout: 10_000 }).toBe(true);
    expect(await page.evaluate(() => customElements.get('estate-enquiry'))).toBeUndefined();
    expect(await page.evaluate(() => (globalThis as { tamperedChunkRan?: boolean }).tamperedChunkRan)).toBeUndefined();
    await context.close();

    // The control: the same page over the untampered build gets its form.
    writeFileSync(join(tamperedDir, tamperedChunk), readFileSync(join(rig.widgetDir, tamperedChunk)));
    const control = await watchedPage(rig.browser);
    await control.page.goto(`${tamperedSite.origin}/form.html`);
    await control.page.getByRole('textbox', { name: 'Full name' }).waitFor();
    expect(control.problems).toEqual([]);
    await control.context.close();
  });
});
