// Issue 32: the report page's HTML from a model: what visitors and agencies wrote (a campaign's
// utm_source, an address) is text, never markup; and the page holds no script.
import { describe, expect, it } from 'vitest';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { renderReport } from '../../server/reports/page.ts';
import { buildReportModel } from '../../server/reports/report-data.ts';

const listing = {
  id: 8,
  type: 'sale',
  address: { display: '1 <b>Bold</b> Street & Lane, Kew VIC', suburb: 'Kew', postcode: '3101', state: 'VIC' },
  heading: null,
  displayPrice: 'Offers over $1.2m "firm"',
  photos: [],
  photo: null,
  openHomes: [],
  inserted: '2031-06-10T00:00:00.000Z',
} as unknown as ListingDetail;

describe('the report page as HTML', () => {
  it('escapes every word it did not write itself, and has no script', () => {
    const model = buildReportModel({
      agencyName: 'Smith & <Sons>',
      timeZone: 'Australia/Sydney',
      listing,
      listedDay: '2031-06-10',
      since: '2031-06-10',
      today: '2031-06-18',
      visits: {
        days: [{ day: '2031-06-12', detail: 5, visitors: 4, card: 0, mapCard: 0, photos: 0, kept: 1, calendar: 0, shared: 0 }],
        sources: [{ day: '2031-06-12', source: 'utm:<script>alert(1)</script>', views: 5 }],
        dropped: 0,
      },
      leads: { days: [], openHomes: [], erased: [] },
      typical: [],
    });
    const { html } = renderReport(model, { accent: 'red; } body { display:none' });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<b>Bold</b>');
    expect(html).toContain('1 &lt;b&gt;Bold&lt;/b&gt; Street &amp; Lane, Kew VIC');
    expect(html).toContain('Campaign: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Smith &amp; &lt;Sons&gt;');
    expect(html).toContain('Offers over $1.2m &quot;firm&quot;');
    // A colour that is not #rrggbb is never written into the style sheet.
    expect(html).not.toContain('red; }');
    expect(html).toContain('--accent:#1f4e79');
    // The words beside the chart say the model's numbers, over the days since listing.
    expect(html).toContain('5 views from 4 visitors in 9 days; busiest Thursday 12 June with 5.');
  });
});
