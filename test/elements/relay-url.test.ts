import { expect } from '@open-wc/testing';
import { relayBase, relayUrl, fetchJson, RelayError } from '../../widget/shared/relay.ts';

describe('relay discovery', () => {
  it('uses the relay attribute when given, with or without a trailing slash', () => {
    expect(relayBase('https://relay.example/estate')).to.equal('https://relay.example/estate/');
    expect(relayUrl('https://relay.example/estate/', '/api/v1/listings')).to.equal(
      'https://relay.example/estate/api/v1/listings',
    );
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
});
