import { describe, expect, it } from 'vitest';
import { plainText } from '../../server/crm/plain-text.ts';

describe('plainText (the CRM texts the relay publishes)', () => {
  it('decodes numeric and named entities once, and leaves unknown ones and invalid code points as written', () => {
    expect(plainText('&#x2022; &#8211; &amp;lt; &eacute; &Eacute; &NBSP; &prime;&Prime; &bogus; &#0; &#xD800;')).toBe(
      '\u2022 \u2013 &lt; \u00e9 \u00c9 \u00a0 \u2032\u2033 &bogus; &#0; &#xD800;',
    );
  });

  it('turns Windows and old Mac line breaks into \\n, trims, and gives null for nothing', () => {
    expect(plainText('  Family home\r\n&#x2022; North facing\r\rGarden  ')).toBe('Family home\n\u2022 North facing\n\nGarden');
    expect(plainText('   ')).toBeNull();
    expect(plainText(null)).toBeNull();
    expect(plainText(undefined)).toBeNull();
  });

  it('leaves markup as characters: the elements render text nodes, never HTML', () => {
    expect(plainText('&lt;img src=x onerror=alert(1)&gt;')).toBe('<img src=x onerror=alert(1)>');
  });
});
