/** What an operator command's arguments hold once read: `--flag`, `--name value` or `--name=value`, and the rest. */
export interface ParsedOptions {
  flags: Set<string>;
  values: Record<string, string>;
  positional: string[];
}

/**
 * Reads a command's arguments against the options it knows: `flags` take no value, `values` do.
 * Returns the message for the operator (an unknown option, a value missing) instead of throwing.
 */
export function parseOptions(args: string[], flags: string[], values: string[] = []): ParsedOptions | string {
  const parsed: ParsedOptions = { flags: new Set(), values: {}, positional: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (flags.includes(name)) parsed.flags.add(name);
    else if (values.includes(name)) {
      const value = inline ?? args[++index];
      if (value === undefined) return `--${name} needs a value`;
      parsed.values[name] = value;
    } else return `unknown option --${name}`;
  }
  return parsed;
}
