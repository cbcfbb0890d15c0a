import { readFileSync, statSync } from 'node:fs';

/** Standard input as the CLI reads a secret from it: a terminal (typed, not echoed) or a pipe. */
export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Longer than any access token; a bigger input is a mistake (a wrong file), not a token. */
const MAX_SECRET_BYTES = 8192;

/** A token read from a file or standard input, or the message saying what is wrong with it (never quoting it). */
export function checkSecret(raw: string, where: string): string | { error: string } {
  const secret = raw.replace(/^\uFEFF/, '').trim();
  if (secret === '') return { error: `${where} is empty: it must hold the access token` };
  if (/[\s\p{Cc}]/u.test(secret))
    return { error: `${where} must hold the access token alone, on one line (it holds spaces, line breaks or control characters)` };
  if (secret.length > 2048) return { error: `${where} holds ${secret.length} characters: longer than an access token` };
  return secret;
}

/** Reads a token file (at most 8 KiB). */
export function readSecretFile(path: string): string | { error: string } {
  try {
    const size = statSync(path).size;
    if (size > MAX_SECRET_BYTES) return { error: `--token-file ${path} is ${size} bytes: longer than an access token (is it the right file?)` };
    return checkSecret(readFileSync(path, 'utf8'), `--token-file ${path}`);
  } catch (error) {
    return { error: `--token-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/**
 * Reads a token from standard input: on a terminal after `prompt`, without echoing what is typed;
 * from a pipe or a redirected file, all of it (at most 8 KiB).
 */
export async function readSecretInput(input: SecretInput, prompt: (text: string) => void): Promise<string | { error: string }> {
  if (input.isTTY && input.setRawMode) {
    prompt('Access token (typed, not shown; Enter to finish): ');
    return checkSecret(await readTyped(input), 'the token typed');
  }
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.length > MAX_SECRET_BYTES) return { error: 'standard input holds more than 8 KiB: longer than an access token' };
  }
  return checkSecret(text, 'standard input');
}

/** One line from a terminal in raw mode (no echo); Ctrl-C or Ctrl-D on an empty line gives up. */
function readTyped(input: SecretInput): Promise<string> {
  return new Promise((resolve) => {
    let typed = '';
    input.setRawMode!(true);
    input.resume();
    const done = (value: string) => {
      input.setRawMode!(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return done(typed);
        if (char === '\u0003' || (char === '\u0004' && typed === '')) return done('');
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}
