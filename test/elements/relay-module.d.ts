// Served by the relay plugin in web-test-runner.config.mjs: the URL of the relay started for the run.
declare module '/__relay.js' {
  export const RELAY: string;
}
