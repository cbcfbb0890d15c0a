import { expect } from '@open-wc/testing';
import { relayBase, relayUrl, fetchJson, RelayError } from '../../widget/shared/relay.ts';
import { isFilling, retryDelayMs } from '../../widget/shared/relay-filling.ts';

describe('relay discovery', () => {
  it('uses the relay attribute when given, with or without a trailing slash', () => {
    expect(relayBase('https://relay.example/estate')).to.equal('https://relay.example/estate/');
    expect(relayUrl('https://relay.example/estate/', '/api/v1/listings')).to.equal('https://relay.example/estate/api/v1/listings');
  });

  it('falls back to the folder the widget script was served from', () => {
    expect(relayBase(null)).to.equal(new URL('.', new URL('../../widget/shared/relay.ts', import.meta.url)).href);
    expect(relayBase('   ')).to.equal(relayBase(undefined));
  });

  it('turns a non-2xx answer into a RelayError with its status', async () => {
    let error: unknown;
    try {
      await fetchJson('/no-such-file.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(RelayError);
    expect((error as RelayError).status).to.equal(404);
  });

  it('knows the "still filling" answer and waits as Retry-After says (seconds or a date), within 1 s..60 s', () => {
    const filling = (retryAfter: string | null, body: unknown = { error: 'listings_filling', state: 'filling', retryAfterSeconds: 7 }) =>
      new RelayError(503, body, retryAfter);
    expect(isFilling(filling('5'))).to.equal(true);
    expect(isFilling(new RelayError(503, { error: 'down' }, '5')), 'another 503 is an error').to.equal(false);
    expect(isFilling(new RelayError(404, { state: 'filling' }, null))).to.equal(false);
    expect(retryDelayMs(filling('5'))).to.equal(5000);
    expect(retryDelayMs(filling(null)), 'the body says 7').to.equal(7000);
    expect(retryDelayMs(filling('soon', {})), 'neither: 5 s').to.equal(5000);
    expect(retryDelayMs(filling('3600'))).to.equal(60_000);
    expect(retryDelayMs(filling('0'))).to.equal(1000);
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryDelayMs(filling('Sun, 22 Nov 2026 10:00:12 GMT'), now)).to.equal(12_000);
  });
});
