// An agent's profile as the CRM gives it, as the relay publishes it (issue #31).
import { describe, expect, it } from 'vitest';
import { profileText } from '../../server/crm/profile-text.ts';

describe('profileText', () => {
  it('keeps the words and the allowed tags of pasted HTML, and drops the empty spacer paragraphs Word leaves', () => {
    const pasted =
      '<p class="MsoNormal" style="margin:0cm"><span style="font-size:11.0pt">Tom leads the <b>Surry Hills</b> office.</span></p>' +
      '<p class="MsoNormal" style="margin:0cm"><span style="font-size:11.0pt">&nbsp;</span></p><p> </p><p>\u00a0</p>' +
      '<ul><li>Auctions</li><li>&nbsp;</li></ul><script>alert(1)</script><p>Call <a href="tel:0255502100" onclick="x()" target="_blank">the office</a>.</p>';
    expect(profileText(pasted)).toEqual({
      format: 'html',
      html: '<p>Tom leads the <b>Surry Hills</b> office.</p><ul><li>Auctions</li></ul><p>Call <a href="tel:0255502100" rel="nofollow noopener">the office</a>.</p>',
    });
  });

  it('keeps a paragraph holding only a line break out too, and gives plain text as text', () => {
    expect(profileText('<p>Hi</p><p><br></p>')).toEqual({ format: 'html', html: '<p>Hi</p>' });
    expect(profileText('<p>&nbsp;</p>')).toBeNull();
    expect(profileText('Sarah sells homes.\r\n\r\n&#x2022; Kew')).toEqual({ format: 'text', text: 'Sarah sells homes.\n\n\u2022 Kew' });
  });
});
