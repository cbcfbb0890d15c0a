// The reactive controllers on their own, each held by a bare Lit element: when a field's message
// may show (Lion's rules), the pending submission (storage, backoff, back online), and the
// element's state in the address bar (prefixed parameters, history entries, Back), and the data
// task (@lit/task, held to what the elements rely on).
import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import { LitElement } from 'lit';
import { FieldInteractionController } from '../../widget/shared/field-interaction.ts';
import { PendingSubmissionController } from '../../widget/enquiry/pending-submission.ts';
import { loadPending, type PendingEnquiry } from '../../widget/enquiry/pending-store.ts';
import { UrlQueryController } from '../../widget/shared/url-query.ts';
import { Task, TaskStatus, initialState } from '@lit/task';

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

describe('Task', () => {
  class TaskHost extends LitElement {
    static override properties = { item: { type: Number } };
    declare item: number;
    calls: Array<{ id: number; signal: AbortSignal }> = [];
    events: string[] = [];
    answers = new Map<number, { resolve: (value: string) => void; reject: (error: Error) => void }>();
    readonly task: Task<readonly [number], string> = new Task(this, {
      task: ([id], { signal }) => {
        this.calls.push({ id, signal });
        if (id === 0) return Promise.resolve(initialState);
        return new Promise<string>((resolve, reject) => this.answers.set(id, { resolve, reject }));
      },
      args: () => [this.item] as const,
      onComplete: (value: string): void => void this.events.push(`complete ${value} while ${this.task.status}`),
      onError: (error: unknown): void => void this.events.push(`error ${(error as Error).message}`),
    });
    constructor() {
      super();
      this.item = 1;
    }
    override render() {
      return this.task.render({ initial: () => 'initial', pending: () => 'pending', complete: (value) => `got ${value}`, error: () => 'failed' });
    }
  }
  customElements.define('task-host', TaskHost);

  it('runs when its args change, aborts the run it replaces, and renders each state', async () => {
    const host = await fixture<TaskHost>(html`<task-host></task-host>`);
    expect(host.task.status).to.equal(TaskStatus.PENDING);
    expect(host.shadowRoot!.textContent).to.equal('pending');
    host.requestUpdate();
    await host.updateComplete;
    expect(host.calls.length, 'the same args do not run it again').to.equal(1);
    host.item = 2;
    await host.updateComplete;
    expect(host.calls.map((call) => call.id)).to.deep.equal([1, 2]);
    expect(host.calls[0]!.signal.aborted, 'the replaced run is aborted').to.equal(true);
    host.answers.get(1)!.resolve('stale');
    host.answers.get(2)!.resolve('two');
    expect(await host.task.taskComplete).to.equal('two');
    await host.updateComplete;
    expect(host.events, 'onComplete before the status changes, never for a replaced run').to.deep.equal([`complete two while ${TaskStatus.PENDING}`]);
    expect(host.shadowRoot!.textContent).to.equal('got two');
  });

  it('reports an error through onError, taskComplete and render, and goes back to initial on initialState', async () => {
    const host = await fixture<TaskHost>(html`<task-host></task-host>`);
    const complete = host.task.taskComplete;
    host.answers.get(1)!.reject(new Error('down'));
    let rejected: unknown;
    await complete.catch((error: unknown) => (rejected = error));
    expect((rejected as Error).message).to.equal('down');
    await host.updateComplete;
    expect(host.events).to.deep.equal(['error down']);
    expect(host.shadowRoot!.textContent).to.equal('failed');
    host.item = 0;
    await host.updateComplete;
    await aTimeout(0);
    await host.updateComplete;
    expect(host.task.status).to.equal(TaskStatus.INITIAL);
    expect(host.shadowRoot!.textContent).to.equal('initial');
  });

  it('with autoRun false runs only when asked', async () => {
    const host = await fixture<ControllerHost>(html`<controller-host></controller-host>`);
    const seen: string[] = [];
    const task = new Task<[string], string>(host, { autoRun: false, task: async ([word]) => word.toUpperCase() });
    host.requestUpdate();
    await host.updateComplete;
    expect(task.status).to.equal(TaskStatus.INITIAL);
    void task.run(['sent']);
    seen.push(await task.taskComplete);
    expect(seen).to.deep.equal(['SENT']);
    expect(task.status).to.equal(TaskStatus.COMPLETE);
  });
});
