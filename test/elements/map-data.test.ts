// The map's answers (widget/map/map-data.ts) against the test relay: asked once the view rests, and
// at once when the map asks for them at once, even for a URL already waiting for the view to rest
// (the first view's fit: a delay there held a phone's first pins back by 200 ms).
import { expect, waitUntil } from '@open-wc/testing';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { RELAY } from '/__relay.js';
import { MAP_REQUEST_DELAY_MS, MapDataController } from '../../widget/map/map-data.ts';

function host(): ReactiveControllerHost {
  return {
    addController: (_controller: ReactiveController) => {},
    removeController: () => {},
    requestUpdate: () => {},
    updateComplete: Promise.resolve(true),
  };
}

describe('MapDataController', () => {
  const url = `${RELAY}/api/v1/listings/map?bbox=140,-44,155,-25&zoom=4`;
  let asked: string[];
  let realFetch: typeof fetch;
  beforeEach(() => {
    asked = [];
    realFetch = window.fetch;
    window.fetch = (input, init) => {
      asked.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    };
  });
  afterEach(() => {
    window.fetch = realFetch;
  });

  it('asks once the view rests, and once only for the same view', async () => {
    const answers: string[] = [];
    const data = new MapDataController(host(), (_answer, answered) => answers.push(answered));
    const started = performance.now();
    data.want(url);
    data.want(url);
    expect(asked).to.have.length(0);
    await waitUntil(() => answers.length === 1, 'the answer', { timeout: 5_000 });
    expect(performance.now() - started).to.be.at.least(MAP_REQUEST_DELAY_MS - 5);
    expect(asked).to.deep.equal([url]);
    expect(data.state).to.equal('done');
  });

  it('asks at once for a view already waiting to rest when asked again at once', async () => {
    const answers: string[] = [];
    const data = new MapDataController(host(), (_answer, answered) => answers.push(answered));
    data.want(url);
    data.want(url, true);
    // Sent in the same turn, not after the rest.
    expect(asked).to.deep.equal([url]);
    await waitUntil(() => answers.length === 1, 'the answer', { timeout: 5_000 });
    // The rest's timer was let go: no second request once it would have run.
    await new Promise((resolve) => setTimeout(resolve, MAP_REQUEST_DELAY_MS + 50));
    expect(asked).to.deep.equal([url]);
    expect(answers).to.deep.equal([url]);
  });
});
