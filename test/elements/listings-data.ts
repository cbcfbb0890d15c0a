import type { ListingDetail, ListingSummary, Photo } from '../../contract/relay-api.ts';

/**
 * Listings for the states a relay cannot be made to show on demand (a planted `<img onerror>`
 * in a description, a given badge). Photos are tiny inline SVGs, so no network is involved.
 */
export function svgPhoto(id: number, width = 1200, height = 800, caption: string | null = null): Photo {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="hsl(${(id * 47) % 360} 40% 55%)"/></svg>`;
  const url = `data:image/svg+xml,${encodeURIComponent(svg)}`;
  return {
    id,
    caption,
    width,
    height,
    url,
    srcset: { webp: '', jpeg: '' },
    variants: [],
  };
}

export function summary(id: number, overrides: Partial<ListingSummary> = {}): ListingSummary {
  return {
    id,
    type: 'sale',
    status: 'available',
    badge: null,
    heading: `Heading ${id}`,
    address: { display: `${id} Example Street, Kew VIC`, suburb: 'Kew', postcode: '3101', state: 'VIC' },
    displayPrice: '$1,350,000',
    propertyType: 'House',
    bed: 3,
    bath: 2,
    cars: 1,
    landArea: { value: 650, units: 'sqm' },
    floorArea: null,
    methodOfSale: 'Private Treaty',
    auctionDateTime: null,
    photo: svgPhoto(id),
    photoCount: 6,
    modified: '2024-05-01T00:00:00.000Z',
    position: null,
    ...overrides,
  };
}

export function detail(id: number, overrides: Partial<ListingDetail> = {}): ListingDetail {
  const photos = Array.from({ length: 6 }, (_unused, index) => svgPhoto(id * 100 + index, 1200, 800, index === 1 ? 'Kitchen' : null));
  return {
    ...summary(id),
    description: 'First line\nSecond line & more\n\nNew paragraph \u2022 bullet',
    photos,
    photo: photos[0]!,
    floorplans: [svgPhoto(id * 100 + 50, 1000, 750, 'Ground floor')],
    links: [{ url: 'https://video.example/watch/1', kind: 'Video' }],
    openHomes: [
      { id: 1, start: '2099-05-02T00:00:00.000Z', end: '2099-05-02T00:30:00.000Z' },
      { id: 2, start: '2099-05-09T01:00:00.000Z', end: '2099-05-09T01:30:00.000Z' },
    ],
    auction: { dateTime: '2099-05-16T01:00:00.000Z', venue: 'On site', auctioneer: 'Sam Gavel' },
    agents: [{ id: 7, name: 'Jane Citizen', position: 'Director', phone: '0412 345 678', email: 'jane@agency.example', photo: null }],
    features: ['Dishwasher', 'Ducted heating'],
    ensuites: 1,
    toilets: 2,
    geolocation: { latitude: -37.8, longitude: 145.03 },
    inserted: '2024-04-01T00:00:00.000Z',
    office: { name: 'Harbour & Yarra Property', phone: '(03) 5550 1000' },
    ...overrides,
  };
}
