import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import type { TemplateResult } from 'lit';
import { RELAY } from '/__relay.js';
import type { EstateMap } from '../../widget/map/map.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';

/**
 * What the map's element tests share against the run's relay: its answers, the wait for its
 * geocoder, and a map beside a list as an agency's buy page has them.
 */

/** A map 800 × 480 px against the run's relay (or the map `template` gives), once its first answer is shown. */
export async function mapFixture(template: TemplateResult = html`<estate-map relay=${RELAY}></estate-map>`): Promise<EstateMap> {
  const holder = await fixture<HTMLDivElement>(html`<div style="width: 800px">${template}</div>`);
  const el = holder.querySelector('estate-map')!;
  el.style.setProperty('--estate-map-height', '480px');
  await oneEvent(el, 'estate-map-loaded');
  await el.updateComplete;
  return el;
}

export async function relayJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${RELAY}/${path}`, init);
  expect(response.ok, path).to.equal(true);
  return response.json() as Promise<T>;
}

/**
 * Until the simulator's geocoder has placed every listing (a moment after the first sync). Asked
 * past the browser's cache: the answer may be kept a minute, and a first "pending" would stay.
 */
export function listingsPlaced(timeout = 55_000): Promise<void> {
  return waitUntil(async () => (await relayJson<{ pending: number }>('api/v1/listings/placement', { cache: 'no-store' })).pending === 0, 'listings placed', {
    timeout,
  });
}

/** `<estate-map>` above `<estate-listings>` (following it unless `follow` is false), once both have their first answers. */
export async function mapBesideList(follow = true): Promise<{ map: EstateMap; list: EstateListings }> {
  const holder = await fixture<HTMLDivElement>(
    html`<div style="width: 900px">
      <estate-map relay=${RELAY} ?no-follow=${!follow}></estate-map>
      <estate-listings relay=${RELAY} filters page-size="50"></estate-listings>
    </div>`,
  );
  const map = holder.querySelector('estate-map')!;
  const list = holder.querySelector('estate-listings')!;
  await Promise.all([oneEvent(map, 'estate-map-loaded'), list.loadComplete]);
  await list.updateComplete;
  return { map, list };
}
