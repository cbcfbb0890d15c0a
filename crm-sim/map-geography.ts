/*
 * The little geography the simulator's demo tiles are drawn from, written by hand: a coarse outline
 * of Australia's coast (and Tasmania's), a few highways between the places the seed's listings are
 * in, and the cities they belong to. Approximate on purpose (no map data is fetched or shipped):
 * enough to read as Australia from zoom 3 and to put the sea where a buyer expects it around
 * Sydney and Melbourne (Port Jackson, Botany Bay, Port Phillip and Western Port are drawn a little
 * finer, as the listings' suburbs sit on their shores). Points are [latitude, longitude].
 */

export type LatLng = readonly [latitude: number, longitude: number];

/** Land: each ring a closed outline (the last point joins the first). */
export const COASTLINES: readonly (readonly LatLng[])[] = [
  // The mainland, anticlockwise (north up the east coast first) from Sydney's northern beaches.
  [
    [-33.6, 151.33], // Palm Beach
    [-33.43, 151.45], // Central Coast
    [-32.93, 151.78], // Newcastle
    [-32.7, 152.2], // Port Stephens
    [-31.43, 152.92], // Port Macquarie
    [-30.3, 153.15], // Coffs Harbour
    [-28.64, 153.64], // Byron Bay
    [-28.0, 153.44], // Gold Coast
    [-26.4, 153.1], // Noosa
    [-25.0, 153.35], // Fraser Island
    [-24.85, 152.4], // Bundaberg
    [-23.85, 151.3], // Gladstone
    [-22.5, 150.75], // Shoalwater Bay
    [-21.15, 149.2], // Mackay
    [-20.05, 148.25], // Bowen
    [-19.25, 146.82], // Townsville
    [-16.9, 145.78], // Cairns
    [-15.45, 145.25], // Cooktown
    [-14.17, 144.5], // Cape Melville
    [-14.4, 143.8], // Princess Charlotte Bay
    [-12.7, 143.3], // Lockhart River
    [-10.69, 142.53], // Cape York
    [-12.65, 141.85], // Weipa
    [-15.6, 141.35],
    [-17.45, 140.8], // Karumba
    [-17.55, 139.7], // the Gulf's foot
    [-16.6, 138.5],
    [-15.5, 136.55], // Borroloola's coast
    [-14.4, 135.8],
    [-13.2, 136.1], // Blue Mud Bay
    [-12.25, 136.9], // Gove
    [-11.95, 135.7],
    [-12.05, 134.2], // Maningrida
    [-11.35, 132.2], // Cobourg Peninsula
    [-12.45, 130.83], // Darwin
    [-13.0, 130.2],
    [-14.9, 129.55], // Joseph Bonaparte Gulf
    [-15.2, 128.4], // Wyndham
    [-13.85, 126.8], // Cape Londonderry
    [-15.3, 124.5], // the Kimberley
    [-16.4, 122.93], // Cape Leveque
    [-17.95, 122.2], // Broome
    [-19.5, 121.2], // Eighty Mile Beach
    [-20.3, 118.6], // Port Hedland
    [-20.65, 116.7], // Dampier
    [-21.8, 114.15], // North West Cape
    [-22.6, 113.65],
    [-24.9, 113.65], // Carnarvon
    [-26.2, 113.2], // Shark Bay
    [-27.7, 114.15], // Kalbarri
    [-28.78, 114.6], // Geraldton
    [-30.5, 115.05],
    [-31.95, 115.75], // Perth
    [-33.3, 115.63], // Bunbury
    [-33.55, 115.0], // Cape Naturaliste
    [-34.37, 115.13], // Cape Leeuwin
    [-35.0, 116.7],
    [-35.05, 117.9], // Albany
    [-34.4, 119.4],
    [-33.86, 121.9], // Esperance
    [-33.6, 123.9], // Israelite Bay
    [-32.3, 125.5],
    [-31.7, 128.88], // Eucla
    [-31.55, 131.0], // Head of Bight
    [-32.1, 133.7], // Ceduna
    [-33.65, 134.9], // Elliston
    [-34.75, 135.85], // Port Lincoln
    [-33.7, 136.9],
    [-33.03, 137.58], // Whyalla
    [-32.5, 137.78], // Port Augusta
    [-33.18, 137.98], // Port Pirie
    [-33.93, 137.62], // Wallaroo
    [-35.3, 136.88], // Cape Spencer
    [-35.05, 137.75],
    [-34.4, 137.95],
    [-34.15, 138.25],
    [-34.9, 138.5], // Adelaide
    [-35.6, 138.1], // Cape Jervis
    [-35.55, 138.9], // the Murray mouth
    [-36.85, 139.85], // Kingston SE
    [-38.05, 140.75],
    [-38.35, 141.6], // Portland
    [-38.4, 142.5], // Warrnambool
    [-38.85, 143.52], // Cape Otway
    [-38.55, 144.0], // Lorne
    [-38.29, 144.61], // Point Lonsdale
    // Port Phillip
    [-38.27, 144.66],
    [-38.11, 144.66], // Portarlington
    [-38.14, 144.4], // Geelong
    [-38.05, 144.42],
    [-37.97, 144.6],
    [-37.96, 144.7], // Werribee South
    [-37.87, 144.8], // Altona
    [-37.875, 144.9], // Williamstown
    [-37.84, 144.93], // Port Melbourne
    [-37.87, 144.97], // St Kilda
    [-37.92, 144.99], // Brighton
    [-38.0, 145.08], // Mordialloc
    [-38.14, 145.12], // Frankston
    [-38.22, 145.03], // Mornington
    [-38.36, 144.9], // Rosebud
    [-38.33, 144.72], // Sorrento
    [-38.31, 144.65], // Point Nepean
    [-38.49, 144.89], // Cape Schanck
    // Western Port
    [-38.48, 145.02],
    [-38.4, 145.12],
    [-38.3, 145.2], // Hastings
    [-38.22, 145.38], // Tooradin
    [-38.4, 145.45],
    [-38.52, 145.37], // San Remo
    [-38.63, 145.73], // Inverloch
    [-39.13, 146.4], // Wilsons Promontory
    [-38.6, 146.8],
    [-37.88, 147.99], // Lakes Entrance
    [-37.8, 148.6],
    [-37.5, 149.98], // Cape Howe
    [-37.07, 149.92], // Eden
    [-36.4, 150.08],
    [-35.7, 150.2], // Batemans Bay
    [-35.1, 150.78], // Jervis Bay
    [-34.42, 150.91], // Wollongong
    [-34.08, 151.15],
    [-34.06, 151.17], // Cronulla
    // Botany Bay
    [-34.03, 151.23], // Cape Solander
    [-34.015, 151.2], // Kurnell
    [-34.0, 151.13],
    [-33.97, 151.14],
    [-33.96, 151.19],
    [-33.99, 151.23], // La Perouse
    [-34.0, 151.255], // Cape Banks
    [-33.95, 151.265], // Maroubra
    [-33.92, 151.26], // Coogee
    [-33.89, 151.28], // Bondi
    [-33.84, 151.285], // South Head
    // Port Jackson, in along the south shore and out along the north
    [-33.855, 151.26], // Rose Bay
    [-33.857, 151.21], // Circular Quay
    [-33.852, 151.18], // Balmain
    [-33.845, 151.13],
    [-33.83, 151.06],
    [-33.825, 151.06],
    [-33.838, 151.13],
    [-33.843, 151.18],
    [-33.847, 151.21], // Milsons Point
    [-33.835, 151.25],
    [-33.82, 151.29], // North Head
    [-33.79, 151.295], // Manly
    [-33.72, 151.31], // Dee Why
  ],
  // Tasmania
  [
    [-40.68, 144.7], // Cape Grim
    [-40.76, 145.3], // Stanley
    [-41.15, 146.35], // Devonport
    [-41.05, 146.8], // the Tamar
    [-40.8, 147.95],
    [-40.99, 148.35], // Eddystone Point
    [-41.85, 148.3],
    [-42.15, 148.3], // Freycinet
    [-43.2, 147.95], // Tasman Peninsula
    [-43.05, 147.3], // Storm Bay
    [-43.64, 146.83], // South East Cape
    [-43.3, 145.95], // Port Davey
    [-42.2, 145.2], // Macquarie Harbour
    [-41.1, 144.65],
  ],
];

const SYDNEY: LatLng = [-33.8688, 151.2093];
const MELBOURNE: LatLng = [-37.8136, 144.9631];

/** Highways out of the two cities, through the seed's outer suburbs and towns: drawn from zoom 5. */
export const HIGHWAYS: readonly (readonly LatLng[])[] = [
  // The Hume: Sydney, Bowral, Albury, Melbourne.
  [
    SYDNEY,
    [-33.92, 151.0],
    [-34.07, 150.8],
    [-34.47, 150.43],
    [-34.75, 149.72],
    [-34.84, 148.91],
    [-35.07, 148.1],
    [-35.28, 147.74],
    [-36.08, 146.92],
    [-36.36, 146.31],
    [-36.55, 145.98],
    [-37.02, 145.14],
    [-37.7, 144.98],
    MELBOURNE,
  ],
  // West over the Blue Mountains to Mudgee, by Parramatta.
  [SYDNEY, [-33.815, 151.0], [-33.75, 150.69], [-33.71, 150.31], [-33.48, 150.15], [-32.594, 149.587]],
  // The Federal, from the Hume to Canberra.
  [
    [-34.75, 149.72],
    [-35.0, 149.4],
    [-35.28, 149.13],
  ],
  // North to Newcastle.
  [SYDNEY, [-33.8, 151.18], [-33.7, 151.1], [-33.43, 151.34], [-32.93, 151.75]],
  // South-west to Oran Park, north-west to Marsden Park.
  [
    [-33.92, 151.0],
    [-34.005, 150.74],
  ],
  [
    [-33.815, 151.0],
    [-33.696, 150.838],
  ],
  // The Calder: Gisborne, Kyneton, Bendigo.
  [MELBOURNE, [-37.72, 144.85], [-37.49, 144.589], [-37.247, 144.455], [-36.76, 144.28]],
  // West to Geelong, by Werribee.
  [MELBOURNE, [-37.83, 144.88], [-37.9, 144.66], [-38.14, 144.36]],
  // The Western, to Ballarat.
  [MELBOURNE, [-37.79, 144.85], [-37.68, 144.58], [-37.56, 143.85]],
  // South-east by Clyde North into Gippsland.
  [MELBOURNE, [-37.87, 145.08], [-37.99, 145.21], [-38.117, 145.333], [-38.16, 145.93], [-38.19, 146.54]],
];

/** The cities the seed's suburbs are in: named while zoomed out, until the suburbs' own names take over. */
export const CITIES: readonly { name: string; at: LatLng }[] = [
  { name: 'Sydney', at: SYDNEY },
  { name: 'Melbourne', at: MELBOURNE },
];

/** Towns the highways run to, named from zoom 6 to 10 so the roads lead somewhere. */
export const TOWNS: readonly { name: string; at: LatLng }[] = [
  { name: 'Newcastle', at: [-32.93, 151.75] },
  { name: 'Wollongong', at: [-34.42, 150.88] },
  { name: 'Canberra', at: [-35.28, 149.13] },
  { name: 'Goulburn', at: [-34.75, 149.72] },
  { name: 'Albury', at: [-36.08, 146.92] },
  { name: 'Bendigo', at: [-36.76, 144.28] },
  { name: 'Ballarat', at: [-37.56, 143.85] },
  { name: 'Geelong', at: [-38.14, 144.36] },
  { name: 'Traralgon', at: [-38.19, 146.54] },
];
