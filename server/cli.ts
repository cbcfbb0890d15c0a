import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliCommand } from './runtime/cli-command.ts';
import type { SecretInput } from './runtime/secret-input.ts';
import { ConfigError, loadConfig, type Config } from './runtime/config.ts';
import { agenciesCommand, scopeToAgency } from './ops/agencies-cli.ts';
import { outboxCommand } from './enquiries/cli.ts';
import { operatorCommands } from './ops/cli.ts';
import { savedSearchesCommand } from './saved-searches/cli.ts';
import { reportsCommand } from './reports/cli.ts';

/**
 * The operator's command line: `npm run relay -- <command> [arguments]`. It reads the same
 * environment as the relay (DATA_DIR above all) and works on the store beside a running relay.
 *
 * To add a command, write a CliCommand (cli-command.ts) in its concern's folder and add it to `commands`.
 */
export const commands: CliCommand[] = [...operatorCommands, outboxCommand, savedSearchesCommand, reportsCommand, agenciesCommand];

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** Where a token is read from (default process.stdin). */
  stdin?: SecretInput;
  /** The operator's clock (default the system's): a test gives the clock its relays run on. */
  now?: () => number;
}

export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<number> {
  const out = options.out ?? ((text: string) => console.log(text));
  const err = options.err ?? ((text: string) => console.error(text));
  const [name, ...args] = argv;
  const width = Math.max(...commands.map((command) => command.name.length));
  const help = () =>
    [
      'Usage: npm run relay -- <command> [arguments]',
      '',
      'Commands:',
      ...commands.map((command) => `  ${command.name.padEnd(width)} ${command.summary}`),
      '',
      "Run `npm run relay -- <command> help` for a command's arguments. With AGENCIES_FILE, add `--agency <slug>` to work on one agency's store.",
    ].join('\n');
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? err : out)(help());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    err(`Unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(options.env ?? process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      err(error.message);
      return 1;
    }
    throw error;
  }
  // With AGENCIES_FILE a store command names its agency (--agency <slug>): it then runs on that agency's store.
  let scope;
  try {
    scope = command.name === 'agencies' ? { args, config } : scopeToAgency(command.name, args, config);
  } catch (error) {
    if (error instanceof ConfigError) {
      err(error.message);
      return 1;
    }
    throw error;
  }
  if (typeof scope === 'string') {
    err(`${scope}\n\n${command.usage}`);
    return 2;
  }
  const stdin = options.stdin ?? process.stdin;
  return command.run(scope.args, {
    config: scope.config,
    out,
    err,
    stdin,
    ...(options.now ? { now: options.now } : {}),
    ...(scope.agency ? { agency: scope.agency } : {}),
  });
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  process.exitCode = await runCli(process.argv.slice(2));
}
