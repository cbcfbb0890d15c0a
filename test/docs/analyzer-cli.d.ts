// The analyzer ships no types for its CLI module; scripts/docs-elements.ts calls it in memory.
declare module '@custom-elements-manifest/analyzer/cli.js' {
  export function cli(options?: { argv?: string[]; cwd?: string; noWrite?: boolean }): Promise<unknown>;
}
