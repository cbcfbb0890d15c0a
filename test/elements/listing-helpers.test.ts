import { expect } from '@open-wc/testing';
import { descriptionParagraphs, safeHttpUrl } from '../../widget/listing/text.ts';
import { jsonLdText } from '../../widget/listing/json-ld.ts';
import { telHref } from '../../widget/shared/person.ts';
import { LISTING_FILTER_NAMES, LISTING_FILTERS, type FilterSpec } from '../../contract/listing-filters.ts';
import { EstateListings, pageWindow } from '../../widget/listings/listings.ts';
import '../../widget/listings/define.ts';
import { buildQuery, parseBarFilters } from '../../widget/listings/query.ts';
import { resolveSrcset } from '../../widget/shared/picture.ts';
import { formatArea, formatMoney, plural, resolveCurrency, resolveLocale } from '../../widget/shared/format.ts';

describe('listing helpers', () => {
  describe('text', () => {
    it('splits paragraphs on blank lines and keeps single breaks', () => {
      expect(descriptionParagraphs('a\r\nb\r\n\r\n\r\nc  \n \n d')).to.deep.equal([['a', 'b'], ['c'], ['d']]);
      expect(descriptionParagraphs(null)).to.deep.equal([]);
      // The relay decoded the CRM's entities: what is left is the agency's text, never decoded again.
      expect(descriptionParagraphs('Fish &amp; chips &lt;3')).to.deep.equal([['Fish &amp; chips &lt;3']]);
    });

    it('allows only http(s) links', () => {
      expect(safeHttpUrl('https://x.example/a')).to.equal('https://x.example/a');
      expect(safeHttpUrl('javascript:alert(1)')).to.equal(null);
      expect(safeHttpUrl('data:text/html,hi')).to.equal(null);
      expect(safeHttpUrl('not a url')).to.equal(null);
    });

    it('escapes < in JSON-LD so it can never close its script', () => {
      expect(jsonLdText({ a: '</script><b>' })).to.equal('{"a":"\\u003c/script>\\u003cb>"}');
    });

    it('makes tel: links from numbers as typed', () => {
      expect(telHref('0412 345 678')).to.equal('tel:0412345678');
      expect(telHref('+61 (3) 9000-0000')).to.equal('tel:+61390000000');
      expect(telHref('call me')).to.equal(null);
    });
  });

  describe('query', () => {
    it('keeps only valid values', () => {
      expect(buildQuery({ type: 'sale', minBeds: '3', sort: 'bogus', suburb: '  Kew ', minPrice: -5, agentId: 0 }, '2', 500)).to.deep.equal({
        type: 'sale',
        suburb: 'Kew',
        minBeds: 3,
        page: 2,
        pageSize: 100,
      });
    });

    it("observes every filter of the relay's table under its attribute and sends it to the relay", () => {
      const properties = EstateListings.properties as unknown as Record<string, { type?: unknown; attribute?: string }>;
      const sample = (spec: FilterSpec): string =>
        spec.kind === 'choice'
          ? spec.values.at(-1)!
          : spec.kind === 'text' || spec.kind === 'list'
            ? 'Kew'
            : spec.kind === 'bbox'
              ? '145,-37.9,145.1,-37.7'
              : spec.kind === 'area'
                ? '-37.7,144.9;-37.7,145.1;-37.9,145.1;-37.9,144.9'
                : '7';
      for (const name of LISTING_FILTER_NAMES) {
        const spec: FilterSpec = LISTING_FILTERS[name];
        expect(properties[name], name).to.not.equal(undefined);
        expect(properties[name]!.attribute ?? name.toLowerCase(), name).to.equal(spec.attribute);
        expect(properties[name]!.type, name).to.equal(spec.kind === 'whole' || spec.kind === 'money' ? Number : String);
        const element = document.createElement('estate-listings');
        element.setAttribute(spec.attribute, sample(spec));
        const sent = element.query[name];
        expect(String(sent), name).to.equal(sample(spec));
      }
    });

    it('reads the filters attribute', () => {
      expect(parseBarFilters(null)).to.deep.equal([]);
      expect(parseBarFilters('')).to.include('suburb').and.not.include('type');
      expect(parseBarFilters('min-beds, sort type nonsense')).to.deep.equal(['type', 'minBeds', 'sort']);
    });

    it('windows page numbers with gaps', () => {
      expect(pageWindow(1, 1)).to.deep.equal([1]);
      expect(pageWindow(5, 10)).to.deep.equal([1, null, 4, 5, 6, null, 10]);
      expect(pageWindow(3, 5)).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('resolves relay-relative srcset candidates', () => {
      expect(resolveSrcset('https://relay.example/estate/', '/photos/a-480.webp 480w, https://cdn.example/b.webp 960w')).to.equal(
        'https://relay.example/estate/photos/a-480.webp 480w, https://cdn.example/b.webp 960w',
      );
    });
  });

  describe('format', () => {
    it('picks locale and currency', () => {
      expect(resolveLocale(undefined)).to.equal('en-AU');
      expect(resolveLocale('not a locale!!')).to.equal('en-AU');
      expect(resolveCurrency('en-NZ', null)).to.equal('NZD');
      expect(resolveCurrency('en-GB', '')).to.equal('GBP');
      expect(resolveCurrency('en-AU', 'usd')).to.equal('USD');
      expect(formatMoney('en-GB', 'GBP', 750000)).to.equal('£750,000');
    });

    it('formats areas in the units the CRM gave', () => {
      expect(formatArea('en-AU', { value: 650, units: 'sqm' })).to.equal('650 m²');
      expect(formatArea('en-AU', { value: 2.5, units: 'hectare' })).to.equal('2.5 ha');
      expect(formatArea('en-GB', { value: 3, units: 'acres' })).to.equal('3 ac');
      expect(formatArea('en-AU', null)).to.equal(null);
    });

    it('pluralises with Intl.PluralRules', () => {
      const forms = { one: '{count} bedroom', other: '{count} bedrooms' };
      expect(plural('en-AU', 1, forms)).to.equal('1 bedroom');
      expect(plural('en-AU', 1200, forms)).to.equal('1,200 bedrooms');
    });
  });
});
