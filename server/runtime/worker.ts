/** A background job the relay runs (sync, outbox delivery, …); stopped before the store closes. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}
