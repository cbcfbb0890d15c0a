// Issue #31: the team and an agent's page as the relay renders them (server/pages/render.ts, from
// the widget build's server copy of the elements), and the browser's first render over that
// markup: the very same nodes, attributes and text, nested shadow roots included (the agent's
// listing cards and message form), so nothing moves or flashes when the code takes over. The
// release widget bundle, served to Chromium (playwright-core) from a routed origin, no network.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elementRenderer, type RenderedElement } from '../../server/pages/render.ts';
import { buildWidgetBundle, launchChromium, watchProblems } from '../support/browser.ts';
import { member, profile, team } from '../elements/people-data.ts';

const RELAY = 'http://relay.test/';
const settings = {
  relay: RELAY,
  timeZone: 'Australia/Melbourne',
  locale: 'en-AU',
  lang: 'en-AU',
  agentHref: '/listings/agents/{id}/{slug}',
  detailHref: '/listings/{id}/{slug}',
};
const quiet = { warn: () => undefined } as never;

let widgetDir: string;
let browser: Browser;

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
});

/**
 * Runs in the page: an element's light and shadow trees as text (tags, attributes sorted, text
 * exactly). Left out: comments (Lit's markers, which differ between server and browser by design),
 * the server's `defer-hydration` flag on nested elements, the shadow roots' `<style>`, which
 * the browser adopts as constructed style sheets instead, and the message form's own root: the
 * server's is inert on purpose (its button does not submit without the code) and its values are
 * properties, not attributes (its own suites hold its server markup to what a visitor typed).
 */
const SERIALIZE = `window.__serialize = (root) => {
  const out = [];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) out.push(child.data);
      else if (child.nodeType === Node.ELEMENT_NODE && child.localName !== 'style') {
        const attributes = [...child.attributes].filter((a) => a.name !== 'defer-hydration').map((a) => a.name + '="' + a.value + '"').sort();
        out.push('<' + child.localName + (attributes.length ? ' ' + attributes.join(' ') : '') + '>');
        if (child.shadowRoot && child.localName !== 'estate-enquiry') { out.push('#shadow{'); walk(child.shadowRoot); out.push('}'); }
        walk(child.localName === 'template' ? child.content : child);
        out.push('</' + child.localName + '>');
      }
    }
  };
  walk(root);
  return out.join('');
};`;

interface Compared {
  server: string;
  browser: string;
  replaced: boolean;
}

/** Frames watched once the element is ready (hydrated), at 60 a second about two seconds. */
const FRAMES_AFTER_READY = 120;

/** The element the relay rendered, on a page of its own, before and after the widget's code renders over it. */
async function serverThenBrowser(tag: string, element: RenderedElement, ready: string, everyFrame = '() => true'): Promise<Compared & { badFrames: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.route(`${RELAY}**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/page.html') {
      // An inline script after the element runs once the parser has attached its declarative
      // shadow roots and before any module script (the widget) runs: the server's markup as sent.
      const body = `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><title>t</title></head><body><main>${element.html}${element.data}</main>
<script>${SERIALIZE} const el = document.querySelector('${tag}'); window.__server = window.__serialize(el.shadowRoot); window.__serverRoot = el.shadowRoot.firstElementChild;
window.__badFrames = 0; window.__frames = 0; window.__readyFrame = undefined; const holds = ${everyFrame}; const ready = ${ready};
const isReady = () => { try { return Boolean(ready()); } catch { return false; } };
const frame = () => { window.__frames += 1; if (!holds()) window.__badFrames += 1; if (window.__readyFrame === undefined && isReady()) window.__readyFrame = window.__frames;
  if (window.__readyFrame === undefined || window.__frames < window.__readyFrame + ${FRAMES_AFTER_READY}) requestAnimationFrame(frame); }; requestAnimationFrame(frame);</script>
<script type="module" src="/widget.js"></script></body></html>`;
      return route.fulfill({ contentType: 'text/html; charset=utf-8', body });
    }
    const file = join(widgetDir, path.slice(1));
    if (/^\/widget[\w.-]*\.js$/.test(path) && existsSync(file)) {
      return route.fulfill({
        contentType: 'text/javascript; charset=utf-8',
        body: readFileSync(file, 'utf8'),
        headers: { 'Access-Control-Allow-Origin': '*' },
      });
    }
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${RELAY}page.html`);
  await page.waitForFunction(ready, undefined, { timeout: 20_000 });
  // Frames are watched from the parse on, through the code's arrival and hydration, and for about two seconds after.
  await page.waitForFunction(
    (after) => {
      const w = window as unknown as { __frames: number; __readyFrame?: number };
      return w.__readyFrame !== undefined && w.__frames >= w.__readyFrame + after;
    },
    FRAMES_AFTER_READY,
    { timeout: 20_000 },
  );
  const compared = await page.evaluate((selector) => {
    const w = window as unknown as { __serialize(root: Node): string; __server: string; __serverRoot: Element | null; __badFrames: number };
    const el = document.querySelector(selector)!;
    return {
      server: w.__server,
      browser: w.__serialize(el.shadowRoot!),
      replaced: el.shadowRoot!.firstElementChild !== w.__serverRoot,
      badFrames: w.__badFrames,
    };
  }, tag);
  expect(problems).toEqual([]);
  await context.close();
  return compared;
}

describe('the team and agent pages’ elements, server-rendered', () => {
  it('renders the team’s cards on the server exactly as the browser’s first render draws them', async () => {
    const rendered = await elementRenderer(widgetDir, quiet).renderTeam(team([...team().items, member(24, 'Ana <b>Ruiz</b>', { position: null })]), settings);
    expect(rendered.html).toContain('<template shadowroot="open" shadowrootmode="open">');
    expect(rendered.html).toContain('href="/listings/agents/21/sarah-nguyen"');
    expect(rendered.html).not.toContain('part="card skeleton"');
    // Text, never markup: the name as characters.
    expect(rendered.html).toContain('Ana &lt;b&gt;Ruiz&lt;/b&gt;');
    const compared = await serverThenBrowser(
      'estate-team',
      rendered,
      `() => { const el = document.querySelector('estate-team'); return customElements.get('estate-team') && el.hasUpdated; }`,
    );
    expect(compared.replaced, 'the browser rendered its own nodes over the server’s').toBe(true);
    expect(compared.server).toContain('Sarah Nguyen');
    expect(compared.browser).toBe(compared.server);
  }, 60_000);

  it('renders an agent’s page on the server, its listing cards too, exactly as the browser’s first render draws it', async () => {
    const agent = profile(21, { email: 'sarah@harbourandyarra.example' });
    const rendered = await elementRenderer(widgetDir, quiet).renderAgent(agent, settings);
    expect(rendered.html).toMatch(/<h1 part="name" class="name"[^>]*>[^<]*<!--lit-part-->Sarah Nguyen/);
    expect(rendered.html).toContain('href="/listings/2101/2101-example-street-kew-vic"');
    expect(rendered.html).toContain('team-href="/listings/agents"');
    expect(rendered.html).toContain('<strong>Kew</strong>');
    expect(rendered.data).toContain('"id":21');
    const compared = await serverThenBrowser(
      'estate-agent',
      rendered,
      `() => {
        const el = document.querySelector('estate-agent');
        const lists = [...(el.shadowRoot?.querySelectorAll('estate-listings') ?? [])];
        const form = el.shadowRoot?.querySelector('estate-enquiry');
        return el.hasUpdated && lists.length === 2 && lists.every((list) => list.hasUpdated) && customElements.get('estate-enquiry') && form.hasUpdated;
      }`,
      // In every painted frame, the server's or the browser's: the message form's fields, and the cards.
      `() => {
        const root = document.querySelector('estate-agent').shadowRoot;
        const fields = root.querySelector('estate-enquiry')?.shadowRoot?.querySelectorAll('input[name="fullName"]').length ?? 0;
        const cards = [...root.querySelectorAll('estate-listings')].map((list) => list.shadowRoot?.querySelectorAll('[part~="card-link"]').length ?? 0);
        return fields === 1 && cards.join() === '2,1';
      }`,
    );
    expect(compared.badFrames, 'frames without the form or the cards').toBe(0);
    expect(compared.replaced).toBe(true);
    // The listing cards' own roots are compared too.
    expect(compared.server).toMatch(/<estate-listings [^>]*>#shadow\{.*2101 Example Street/);
    expect(compared.server).toMatch(/<estate-enquiry agent-id="21"/);
    expect(compared.browser).toBe(compared.server);
  }, 60_000);

  it('without the server build, gives the elements with their attributes and data for the browser to render', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'estate-no-widget-'));
    try {
      const renderer = elementRenderer(empty, quiet);
      const teamPage = await renderer.renderTeam(team(), settings);
      expect(teamPage.html).toBe(
        '<estate-team data-estate-ssr relay="http://relay.test/" locale="en-AU" time-zone="Australia/Melbourne" heading-level="2" agent-href="/listings/agents/{id}/{slug}"></estate-team>',
      );
      expect(teamPage.data).toContain('"slug":"sarah-nguyen"');
      const agentPage = await renderer.renderAgent(profile(21), { ...settings, agentHref: '/a/harbour/listings/agents/{id}/{slug}' });
      expect(agentPage.html).toContain('team-href="/a/harbour/listings/agents"');
      expect(agentPage.html).toContain('detail-href="/listings/{id}/{slug}"');
      expect(agentPage.html).not.toContain('<template');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
