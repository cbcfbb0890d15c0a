// Finding places (issue #30): suburb suggestions, several suburbs, surrounding suburbs, land size,
// keywords, and the price sort by the prices as shown, withheld ones last, the order telling
// nothing of a hidden searchPrice. A whole relay on the CRM simulator, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page, SuburbSuggestions } from '../../contract/relay-api.ts';
import { distanceKm } from '../../server/places/distance.ts';
import { SURROUNDING_KM } from '../../server/places/surrounding.ts';
import { AREA_SUBURBS_MAX, withSurrounding, type AreaSuburbs } from '../../contract/saved-search-area.ts';
import { SUBURBS } from '../../crm-sim/seed-data.ts';
import { startListingRig, type ListingRig } from './rig.ts';

describe('finding places: suggestions, suburbs, land, keywords, price order', () => {
  let rig: ListingRig;
  let all: ListingSummary[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 80, env: { LISTING_CLASSES: 'residential,land,rural' } });
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    all = (await rig.get<Page<ListingSummary>>('/api/v1/listings?pageSize=100')).body.items;
    expect(all.length).toBeGreaterThan(30);
  });
  afterAll(async () => {
    await rig?.close();
  });

  const list = async (query: string) => {
    const response = await rig.get<Page<ListingSummary>>(`/api/v1/listings?${query}&pageSize=100`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const suggest = async (q: string) => {
    const response = await rig.get<SuburbSuggestions>(`/api/v1/suburbs/suggestions?q=${encodeURIComponent(q)}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((item) => item.name);
  };
  const suburbsOf = (items: ListingSummary[]) => new Set(items.map((item) => item.address.suburb));
  const listedSuburbs = () => [...suburbsOf(all)].filter((name): name is string => Boolean(name));

  it('suggests suburbs by name, postcode and address, typing slips forgiven', async () => {
    const listed = listedSuburbs();
    expect(listed).toContain('Kew');
    expect(listed).toContain('Hawthorn');
    expect((await suggest('Hawthorne'))[0]).toBe('Hawthorn');
    expect((await suggest('hawtj'))[0]).toBe('Hawthorn');
    expect((await suggest('3101'))[0]).toBe('Kew');
    expect((await suggest('Kew, VIC 3101'))[0]).toBe('Kew');
    expect(await suggest('Kew NSW')).not.toContain('Kew');
    // A postcode's first digits: suburbs whose postcode starts so (the current listings' among them; sold ones count too).
    const threeOne = SUBURBS.filter((suburb) => suburb.postcode.startsWith('31')).map((suburb) => suburb.name);
    const byDigits = await suggest('31');
    expect(byDigits.length).toBeGreaterThan(1);
    expect(byDigits.every((name) => threeOne.includes(name))).toBe(true);
    expect(byDigits).toEqual(expect.arrayContaining(listed.filter((name) => threeOne.includes(name)).slice(0, 8)));
    // Nothing close: no suggestion rather than a far one.
    expect(await suggest('Zzyzx')).toEqual([]);
    const answer = (await rig.get<SuburbSuggestions>('/api/v1/suburbs/suggestions?q=kew')).body;
    expect(answer.items[0]).toEqual({ name: 'Kew', postcode: '3101', state: 'VIC' });
  });

  it('refuses a bad suggestion query with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['', 'q'],
      ['q=', 'q'],
      [`q=${'a'.repeat(61)}`, 'q'],
      ['q=%3Cscript%3E', 'q'],
      ['q=kew&q=hawthorn', 'q'],
      ['q=kew&limit=3', 'limit'],
    ] as const) {
      const response = await rig.get(`/api/v1/suburbs/suggestions?${query}`);
      expect(response.status, query).toBe(400);
      expect(Object.keys(response.body.fields), query).toContain(field);
    }
  });

  it('filters by several suburbs at once, in any letter case', async () => {
    const kew = await list('suburb=Kew');
    const hawthorn = await list('suburb=Hawthorn');
    expect(kew.total).toBeGreaterThan(0);
    expect(hawthorn.total).toBeGreaterThan(0);
    const both = await list('suburb=kew,%20HAWTHORN');
    expect(both.total).toBe(kew.total + hawthorn.total);
    expect([...suburbsOf(both.items)].sort()).toEqual(['Hawthorn', 'Kew']);
    const refused = await rig.get(`/api/v1/listings?suburb=${Array.from({ length: 13 }, (_, index) => `S${index}`).join(',')}`);
    expect(refused.status).toBe(400);
    expect(refused.body.fields.suburb).toMatch(/at most 12/);
  });

  it('includes the surrounding suburbs: those whose middles are near a chosen one', async () => {
    const kewOnly = await list('suburb=Kew');
    const around = await list('suburb=Kew&surrounding=true');
    const centre = (name: string) => {
      const suburb = SUBURBS.find((entry) => entry.name === name)!;
      return { lat: suburb.latitude, lng: suburb.longitude };
    };
    const found = suburbsOf(around.items);
    expect(found.has('Kew')).toBe(true);
    expect(found.has('Hawthorn')).toBe(true);
    expect(around.total).toBeGreaterThan(kewOnly.total);
    // Every suburb found is near Kew (the simulator's listings scatter ~1 km about their suburb's middle); a far one is not.
    for (const name of found) expect(distanceKm(centre('Kew'), centre(name!)), name!).toBeLessThan(SURROUNDING_KM + 1.5);
    const near = listedSuburbs().filter((name) => distanceKm(centre('Kew'), centre(name)) < SURROUNDING_KM - 1.5);
    for (const name of near) expect(found.has(name), name).toBe(true);
  });

  it('names the suburbs around chosen ones for a saved search (GET /api/v1/suburbs?around=): those the list includes, nearest first', async () => {
    const response = await rig.get<AreaSuburbs>('/api/v1/suburbs?around=Kew');
    expect(response.status, response.text).toBe(200);
    const names = response.body.items.map((suburb) => suburb.name);
    // Exactly the suburbs the list's "include surrounding suburbs" adds to Kew's (those with listings for sale).
    const listed = suburbsOf((await list('suburb=Kew&surrounding=true')).items);
    listed.delete('Kew');
    for (const name of listed) expect(names, name!).toContain(name);
    expect(names).not.toContain('Kew');
    expect(names).toContain('Hawthorn');
    const centre = (name: string) => {
      const suburb = SUBURBS.find((entry) => entry.name === name)!;
      return { lat: suburb.latitude, lng: suburb.longitude };
    };
    // Nearest first, each with the postcode and state its listings give.
    const distances = names.map((name) => distanceKm(centre('Kew'), centre(name)));
    for (let index = 1; index < distances.length; index++) expect(distances[index]! + 1.5).toBeGreaterThanOrEqual(distances[index - 1]!);
    const hawthorn = response.body.items.find((suburb) => suburb.name === 'Hawthorn')!;
    expect(hawthorn.postcode).toBe(all.find((item) => item.address.suburb === 'Hawthorn')!.address.postcode);
    // With a chosen name in another spelling, the same; withSurrounding keeps the chosen first, 12 in all.
    expect((await rig.get<AreaSuburbs>('/api/v1/suburbs?around=%20kew%20')).body.items.map((suburb) => suburb.name)).toEqual(names);
    const kept = withSurrounding(['Kew'], response.body);
    expect(kept.names[0]).toBe('Kew');
    expect(kept.names.length).toBe(Math.min(AREA_SUBURBS_MAX, 1 + names.length));
    // Nonsense is a 400 naming around.
    for (const bad of ['', ',,', `${'x'.repeat(81)}`, Array.from({ length: 13 }, (_, i) => `S${i}`).join(',')]) {
      const refused = await rig.get<{ fields: Record<string, string> }>(`/api/v1/suburbs?around=${encodeURIComponent(bad)}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.fields.around, bad).toBeTruthy();
    }
    expect((await rig.get('/api/v1/suburbs?around=Kew&around=Hawthorn')).status).toBe(400);
  });

  it('filters by land size at least (square metres; an unknown land area never matches)', async () => {
    const sqm = (item: ListingSummary) => (item.landArea ? item.landArea.value * (item.landArea.units.startsWith('hect') ? 10_000 : 1) : null);
    const withLand = all.filter((item) => sqm(item) !== null);
    expect(withLand.length).toBeGreaterThan(3);
    expect(all.length).toBeGreaterThan(withLand.length);
    const middle = [...withLand.map((item) => sqm(item)!)].sort((a, b) => a - b)[Math.floor(withLand.length / 2)]!;
    const large = await list(`minLand=${Math.floor(middle)}`);
    expect(large.total).toBe(all.filter((item) => (sqm(item) ?? -1) >= Math.floor(middle)).length);
    expect(large.items.every((item) => sqm(item)! >= Math.floor(middle))).toBe(true);
    expect((await list('minLand=0')).total).toBe(withLand.length);
  });

  it('filters by keywords over heading, description and highlights, each word from its start', async () => {
    const details = await Promise.all(all.map(async (item) => (await rig.get<ListingDetail>(`/api/v1/listings/${item.id}`)).body));
    const words = (detail: ListingDetail) =>
      ` ${[detail.heading, detail.description, ...detail.features]
        .join(' ')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .join(' ')} `;
    // A word some listings have and others not.
    const counts = new Map<string, number>();
    for (const detail of details)
      for (const word of new Set(words(detail).trim().split(' '))) if (word.length > 4) counts.set(word, (counts.get(word) ?? 0) + 1);
    const [word] = [...counts].find(([, count]) => count > 1 && count < details.length / 2)!;
    const found = await list(`keywords=${encodeURIComponent(word.toUpperCase())}`);
    const expected = details.filter((detail) => words(detail).includes(` ${word}`)).map((detail) => detail.id);
    expect(found.items.map((item) => item.id).sort()).toEqual(expected.sort());
    // Two words: both must be there.
    expect((await list(`keywords=${encodeURIComponent(`${word} zzqx`)}`)).total).toBe(0);
  });

  it('sorts by the prices as shown, ranges by their lower bound, withheld prices last both ways, telling nothing of a hidden searchPrice', async () => {
    const sale = (await list('type=sale&status=available')).items;
    const [guide, range, ...withheld] = sale.slice(0, 5);
    const change = (item: ListingSummary, fields: Record<string, unknown>) => rig.sim.state.changeListing(rig.simListing(item.id).id, { fields }, 'sale');
    change(guide!, { displayPrice: 'Guide $2,150,000', searchPrice: 2_150_000, priceOnApplication: false });
    // The range's hidden searchPrice is below the guide: sorting by it would put the range under the guide.
    change(range!, { displayPrice: '$2,350,000 – $2,590,000', searchPrice: 2_000_000, priceOnApplication: false });
    const hidden = [900_000, 3_000_000, 5_500_000];
    withheld.forEach((item, index) => change(item, { displayPrice: 'Contact Agent', searchPrice: hidden[index], priceOnApplication: true }));
    expect((await rig.relay.listings.sync.run('incremental')).error).toBeUndefined();

    const order = async (sort: string) => (await list(`type=sale&sort=${sort}`)).items;
    const shownCents = (item: ListingSummary) => {
      const match = /\$([\d,]+)/.exec(item.displayPrice ?? '');
      return match ? Number(match[1]!.replaceAll(',', '')) : null;
    };
    for (const sort of ['price', '-price']) {
      const items = await order(sort);
      const ids = items.map((item) => item.id);
      const priced = items.filter((item) => shownCents(item) !== null);
      // Withheld (no amount shown) last, whichever way.
      expect(items.slice(priced.length).every((item) => shownCents(item) === null)).toBe(true);
      for (const item of withheld) expect(ids.indexOf(item.id)).toBeGreaterThanOrEqual(priced.length);
      const amounts = priced.map((item) => shownCents(item)!);
      expect(amounts).toEqual([...amounts].sort((a, b) => (sort === 'price' ? a - b : b - a)));
      // "$2,350,000 – $2,590,000" reads above "Guide $2,150,000".
      expect(ids.indexOf(range!.id) < ids.indexOf(guide!.id)).toBe(sort === '-price');
    }
    // The withheld listings' hidden prices reversed: both orders stay exactly the same.
    const before = [(await order('price')).map((item) => item.id), (await order('-price')).map((item) => item.id)];
    withheld.forEach((item, index) => change(item, { searchPrice: hidden[hidden.length - 1 - index] }));
    expect((await rig.relay.listings.sync.run('incremental')).error).toBeUndefined();
    const after = [(await order('price')).map((item) => item.id), (await order('-price')).map((item) => item.id)];
    expect(after).toEqual(before);
  });
});
