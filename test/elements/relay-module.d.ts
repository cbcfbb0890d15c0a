// Served by the relay plugin in web-test-runner.config.mjs: the URL of the relay started for the run.
// (tsconfig `paths` maps the import '/__relay.js' here for the type-checker.)
export declare const RELAY: string;
