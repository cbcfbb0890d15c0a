import type { Config } from './config.ts';
import type { SecretInput } from './secret-input.ts';

/**
 * One command of the operator's command line (server/cli.ts). Each concern's folder writes its
 * own and cli.ts lists them; kept apart from cli.ts so a command never imports the list it is in.
 */
export interface CliContext {
  /** The relay's settings; with AGENCIES_FILE and `--agency <slug>`, that agency's (its store folder and token). */
  config: Config;
  /** With AGENCIES_FILE and `--agency <slug>`: the agency, and DATA_DIR itself (the relay's pid file, the key's budget). */
  agency?: { slug: string; keyDataDir: string };
  out(text: string): void;
  err(text: string): void;
  /** Standard input, where a secret (an agency's token) is read from; never from the arguments. */
  stdin?: SecretInput;
  /** The clock the command's moves are dated by (default Date.now; a test gives its relays' clock). */
  now?: () => number;
}

export interface CliCommand {
  name: string;
  /** One line for the command list. */
  summary: string;
  usage: string;
  /** Returns the exit code. */
  run(args: string[], context: CliContext): number | Promise<number>;
}

/** Whether the arguments ask for the command's usage (`help`, `--help`, `-h`). */
export function wantsHelp(args: string[]): boolean {
  return args.includes('help') || args.includes('--help') || args.includes('-h');
}

/** Prints `message` and the command's usage; returns exit code 2. */
export function usageError(command: CliCommand, message: string, context: CliContext): number {
  context.err(`${message}\n\n${command.usage}`);
  return 2;
}
