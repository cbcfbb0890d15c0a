/** What an operator command's arguments hold once read: `--flag`, `--name value` or `--name=value`, and the rest. */
export interface ParsedOptions {
  flags: Set<string>;
  values: Record<string, string>;
  /** Options that may be given more than once (`--origin a --origin b`), in order. */
  lists: Record<string, string[]>;
  positional: string[];
}

/**
 * Reads a command's arguments against the options it knows: `flags` take no value, `values` do
 * (once), `lists` do and may repeat. Returns the message for the operator (an unknown option, a
 * value missing) instead of throwing.
 */
export function parseOptions(args: string[], flags: string[], values: string[] = [], lists: string[] = []): ParsedOptions | string {
  const parsed: ParsedOptions = { flags: new Set(), values: {}, lists: {}, positional: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    // Split at the first '=' only: a value may hold one (a URL's query).
    const equals = arg.indexOf('=');
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
    const inline = equals < 0 ? undefined : arg.slice(equals + 1);
    if (flags.includes(name)) parsed.flags.add(name);
    else if (lists.includes(name)) {
      const value = inline ?? args[++index];
      if (value === undefined) return `--${name} needs a value`;
      (parsed.lists[name] ??= []).push(value);
    } else if (values.includes(name)) {
      const value = inline ?? args[++index];
      if (value === undefined) return `--${name} needs a value`;
      parsed.values[name] = value;
    } else return `unknown option --${name}`;
  }
  return parsed;
}
