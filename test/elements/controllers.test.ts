// The reactive controllers on their own, each held by a bare Lit element: when a field's message
// may show (Lion's rules), the pending submission (storage, backoff, back online), and the
// element's state in the address bar (prefixed parameters, history entries, Back).
import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import { LitElement } from 'lit';
import { FieldInteractionController } from '../../widget/shared/field-interaction.ts';
import { PendingSubmissionController } from '../../widget/enquiry/pending-submission.ts';
import { loadPending, type PendingEnquiry } from '../../widget/enquiry/pending-store.ts';
import { UrlQueryController } from '../../widget/shared/url-query.ts';

class ControllerHost extends LitElement {}
customElements.define('controller-host', ControllerHost);

const KEY = 'estate-enquiry:agent:991';
const pending = (originalId: string): PendingEnquiry => ({
  request: { originalId, agentId: 991, fullName: 'Priya Raman', email: 'priya@example.com', message: 'Hello', elapsedMs: 5000 },
  savedAt: Date.now(),
});

describe('FieldInteractionController', () => {
  it('shows a message once a field was changed and left, then follows typing', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const fields = new FieldInteractionController<'email' | 'name'>(host);
    expect(fields.changed('email', false), 'typing for the first time').to.equal(false);
    expect(fields.left('email'), 'leaving after a change').to.equal(true);
    expect(fields.changed('email', true), 'typing once touched').to.equal(true);
    expect(fields.left('name'), 'leaving a field never changed').to.equal(false);
    expect(fields.isDirty('name')).to.equal(false);
    expect(fields.isDirty('email')).to.equal(true);
  });

  it('shows every message after a submit, and nothing again after a reset', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const fields = new FieldInteractionController<'email' | 'name'>(host);
    fields.submit();
    expect(fields.submitted).to.equal(true);
    expect(fields.changed('name', false)).to.equal(true);
    expect(fields.left('email')).to.equal(true);
    fields.reset();
    expect(fields.submitted).to.equal(false);
    expect(fields.changed('name', false)).to.equal(false);
    expect(fields.isDirty('email')).to.equal(false);
    // A message already showing keeps following the typing, whatever the state.
    expect(fields.changed('email', true)).to.equal(true);
  });
});

describe('PendingSubmissionController', () => {
  afterEach(() => localStorage.removeItem(KEY));

  it('keeps the submission in storage for the next page, and forgets it once settled', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const sent: string[] = [];
    const submission = new PendingSubmissionController(host, { resend: (p) => sent.push(p.request.originalId), canResend: () => true });
    submission.keep(KEY, pending('a1'));
    expect(loadPending(KEY)?.request.originalId).to.equal('a1');

    const nextPage = new PendingSubmissionController(host, { resend: () => {}, canResend: () => true });
    expect(nextPage.restore(KEY)?.request.originalId).to.equal('a1');
    expect(nextPage.current?.request.originalId).to.equal('a1');
    nextPage.settle(KEY);
    expect(nextPage.current).to.equal(undefined);
    expect(loadPending(KEY)).to.equal(undefined);
    expect(sent).to.deep.equal([]);
  });

  it('retries with growing waits, honours Retry-After up to its cap, and stops once settled', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const sent: number[] = [];
    const started = performance.now();
    const submission = new PendingSubmissionController(host, {
      resend: () => sent.push(performance.now() - started),
      canResend: () => true,
      baseDelayMs: 30,
      maxDelayMs: 1000,
      maxRetryAfterMs: 50,
      random: () => 0.5, // no jitter
    });
    submission.keep(KEY, pending('b2'));
    expect(submission.failed()).to.equal(30);
    expect(submission.failed(), 'the second failure waits three times as long (and replaces the first timer)').to.equal(90);
    await aTimeout(150);
    expect(sent.length, 'one retry, after the second wait').to.equal(1);
    expect(sent[0]).to.be.greaterThanOrEqual(85);
    expect(submission.failed(10_000), 'Retry-After, capped').to.equal(50);
    submission.settle(KEY);
    await aTimeout(100);
    expect(sent.length, 'a settled submission is not sent again').to.equal(1);
  });

  it('sends again at once when the browser comes back online, only while connected and allowed', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const sent: string[] = [];
    let allowed = true;
    const submission = new PendingSubmissionController(host, { resend: (p) => sent.push(p.request.originalId), canResend: () => allowed });
    window.dispatchEvent(new Event('online'));
    expect(sent, 'nothing pending: nothing to send').to.deep.equal([]);
    submission.keep(KEY, pending('c3'));
    window.dispatchEvent(new Event('online'));
    expect(sent).to.deep.equal(['c3']);
    allowed = false;
    window.dispatchEvent(new Event('online'));
    expect(sent, 'not while a send is running').to.deep.equal(['c3']);
    allowed = true;
    host.remove();
    window.dispatchEvent(new Event('online'));
    expect(sent, 'not once the element left the page').to.deep.equal(['c3']);
  });
});

describe('UrlQueryController', () => {
  const start = window.location.href;
  afterEach(() => history.replaceState(null, '', start));

  it("reads and writes its own (prefixed) parameters, leaving the page's others alone", async () => {
    history.replaceState(null, '', '?utm=mail&a.page=3&page=9');
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    let prefix = 'a.';
    const query = new UrlQueryController(host, { prefix: () => prefix, onNavigate: () => {} });
    expect(query.get('page')).to.equal('3');
    expect(query.get('suburb')).to.equal(null);
    const url = new URL(query.url({ page: null, suburb: 'Kew' }));
    expect(url.searchParams.get('a.page')).to.equal(null);
    expect(url.searchParams.get('a.suburb')).to.equal('Kew');
    expect(url.searchParams.get('page'), 'another element’s parameter').to.equal('9');
    expect(url.searchParams.get('utm')).to.equal('mail');
    prefix = '';
    expect(query.get('page')).to.equal('9');
  });

  it('pushes history entries, replaces in place, and hears Back while connected', async () => {
    history.replaceState(null, '', '?');
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const seen: Array<string | null> = [];
    const query = new UrlQueryController(host, { prefix: () => '', onNavigate: () => seen.push(query.get('page')) });
    const length = history.length;
    query.push({ page: '2' });
    expect(history.length).to.equal(length + 1);
    expect(query.get('page')).to.equal('2');
    query.replace({ page: '3' });
    expect(history.length, 'replace adds no entry').to.equal(length + 1);
    const back = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
    history.back();
    await back;
    expect(seen, 'Back tells the element, which reads the URL it came back to').to.deep.equal([null]);
    host.remove();
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(seen.length, 'not once the element left the page').to.equal(1);
  });
});
