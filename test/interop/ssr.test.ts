// Server rendering readiness (issue #12): every element renders in Node through @lit-labs/ssr,
// with nothing of ours touching a DOM in its constructor or first render: the server sends each
// element's shadow root as declarative shadow DOM (its skeleton, or the whole form), in the base
// language, and nothing throws.
import { render } from '@lit-labs/ssr';
import { collectResult } from '@lit-labs/ssr/lib/render-result.js';
import { html } from 'lit';
import { describe, expect, it } from 'vitest';
import '../../widget/index.ts';
import { detail as listingDetail, summary } from '../elements/listings-data.ts';
import { profile, team } from '../elements/people-data.ts';

async function serverRender(template: unknown): Promise<string> {
  return collectResult(render(template));
}

describe('server rendering (@lit-labs/ssr, no DOM)', () => {
  it('renders the enquiry form whole: fields, labels and button', async () => {
    const out = await serverRender(html`<estate-enquiry agent-id="7" strings='{"labelName":"Your name"}'></estate-enquiry>`);
    expect(out).toContain('<template shadowroot="open" shadowrootmode="open">');
    expect(out).toMatch(/<label[^>]*for="fullName"[^>]*>[\s\S]*Your name/);
    expect(out).toContain('Send enquiry');
    expect(out).toContain('Send a message');
  });

  it('renders the grid and the detail with their loading placeholders, keeping the space', async () => {
    const grid = await serverRender(html`<estate-listings page-size="3"></estate-listings>`);
    expect(grid).toContain('<template shadowroot="open"');
    expect(grid).toContain('aria-busy="true"');
    expect((grid.match(/part="card skeleton"/g) ?? []).length).toBe(3);
    const detail = await serverRender(html`<estate-listing listing-id="42"></estate-listing>`);
    expect(detail).toContain('part="skeleton"');
    expect(detail).toContain('Loading property…');
    const lightbox = await serverRender(html`<estate-lightbox></estate-lightbox>`);
    expect(lightbox).toContain('<dialog');
  });

  // Issue #31: the team and an agent's page, loading (an agency's own page) and given (the relay's).
  it('renders the team and an agent with their loading placeholders, and in full when given', async () => {
    const loading = await serverRender(html`<estate-team></estate-team><estate-agent agent-id="21"></estate-agent>`);
    expect((loading.match(/part="card skeleton"/g) ?? []).length).toBe(4);
    expect(loading).toContain('part="skeleton"');
    const given = await serverRender(html`<estate-team .team=${team()}></estate-team><estate-agent .agent=${profile(21)}></estate-agent>`);
    expect(given).toContain('Sarah Nguyen');
    expect(given).toContain('<strong>Kew</strong>');
    expect(given).toContain('<estate-enquiry');
  });

  // Issue #13: what the relay's listing pages are made of.
  it('renders listings the host gives at once, in full: the cards, and the whole detail', async () => {
    const grid = await serverRender(html`<estate-listings detail-href="/listings/{id}/{slug}" .listings=${[summary(1), summary(2)]}></estate-listings>`);
    expect(grid).not.toContain('part="card skeleton"');
    expect(grid).toContain('href="/listings/1/1-example-street-kew-vic"');
    const detail = await serverRender(html`<estate-listing relay="/" .listing=${listingDetail(7)}></estate-listing>`);
    expect(detail).not.toContain('part="skeleton"');
    expect(detail).toContain('7 Example Street, Kew VIC');
    expect(detail).toContain('<estate-enquiry');
  });
});
