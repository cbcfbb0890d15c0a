// What `npm start` prints on a terminal (server/ops/start-banner.ts, issue #33): a few lines a
// person reads, in demo mode and on a real account.
import { describe, expect, it } from 'vitest';
import { startBanner } from '../../server/ops/start-banner.ts';

const latest = '<script type="module" src="https://relay.agency.example/widget.js"></script>';
const pinned = { url: 'https://relay.agency.example/widget.0123456789.js', integrity: 'sha384-x', tag: '<script … integrity="sha384-x">' };

describe('the start-up banner', () => {
  it('in demo mode: the demo site, listing pages, the simulator and its inbox, the tag, how to change the port; demo mode said once', () => {
    const text = startBanner({
      url: 'http://127.0.0.1:8787',
      publicUrl: undefined,
      demoMode: true,
      simulator: { backOfficeUrl: 'http://127.0.0.1:4000/__sim/' },
      mailCaught: true,
      tags: { latest, pinned },
      otherAgencies: [],
    });
    const lines = text.split('\n').filter((line) => line.trim());
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(text).toMatch(/Demo site +http:\/\/127\.0\.0\.1:8787\//);
    expect(text).toMatch(/CRM simulator +http:\/\/127\.0\.0\.1:4000\/__sim\//);
    expect(text).toMatch(/Inbox +http:\/\/127\.0\.0\.1:4000\/__sim\/#mail-heading/);
    expect(text).toContain(latest);
    expect(text).not.toContain('Pinned');
    expect(text).toContain('PORT=8080 npm start');
    expect(text.match(/demo mode/gi)).toHaveLength(1);
  });

  it('on a real account: the public address, both tags, and where the pinned one comes from when the widget is not built', () => {
    const facts = { url: 'http://0.0.0.0:8787', publicUrl: 'https://relay.agency.example', demoMode: false, mailCaught: false, otherAgencies: [] };
    const built = startBanner({ ...facts, tags: { latest, pinned } });
    expect(built).toMatch(/Relay +https:\/\/relay\.agency\.example\/ +\(listening on http:\/\/0\.0\.0\.0:8787\)/);
    expect(built).toContain(`Pinned (SRI)  ${pinned.tag}`);
    expect(built).not.toMatch(/demo|simulator|Inbox/i);
    expect(startBanner({ ...facts, tags: { latest } })).toContain('run npm run build:widget');
  });
});
