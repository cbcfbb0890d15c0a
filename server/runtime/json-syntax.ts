/**
 * Where a JSON text stops being JSON, as a line and column an editor can go to, and what was
 * expected there. JSON.parse's own message differs between Node versions (20 gives a character
 * offset, or none and a quote of the text; 22 adds the line) and may quote the text, which in a
 * file of access tokens is a secret: this scanner names the place and the fault, never the text.
 * Called only once JSON.parse has refused the text.
 */
export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in characters. */
  column: number;
  message: string;
}

class Fault extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let index = 0;
  const whitespace = () => {
    while (index < text.length && ' \t\n\r'.includes(text[index]!)) index++;
  };
  const expect = (what: string): never => {
    throw new Fault(index, index >= text.length ? `Unexpected end of the file: expected ${what}` : `Expected ${what}`);
  };
  const string = () => {
    index++; // the opening quote
    for (;;) {
      if (index >= text.length) throw new Fault(index, 'Unterminated string: expected a closing "');
      const char = text[index]!;
      if (char === '"') {
        index++;
        return;
      }
      if (char < ' ') throw new Fault(index, 'Control character (such as a line break) in a string: write it as an escape such as \\n');
      if (char === '\\') {
        const escape = text[index + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) throw new Fault(index, 'Bad escape in a string: \\u needs four hex digits');
          index += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape))
          throw new Fault(index, 'Bad escape in a string (only \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        index += 2;
        continue;
      }
      index++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(index));
    if (!match) expect('a number');
    index += match![0].length;
    if (/^[0-9.eE+-]/.test(text[index] ?? '')) throw new Fault(index, 'Bad number (no leading zeros; digits after a "." or an exponent)');
  };
  const value = (): void => {
    whitespace();
    const char = text[index];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, index)) {
        index += literal.length;
        return;
      }
    }
    expect('a value (a "string", a number, an object, an array, true, false or null)');
  };
  const object = () => {
    index++;
    whitespace();
    if (text[index] === '}') {
      index++;
      return;
    }
    for (;;) {
      whitespace();
      if (text[index] !== '"') expect(text[index] === '}' ? 'a property name after "," (a trailing comma is not JSON)' : 'a double-quoted property name');
      string();
      whitespace();
      if (text[index] !== ':') expect("':' after the property name");
      index++;
      value();
      whitespace();
      if (text[index] === ',') {
        index++;
        continue;
      }
      if (text[index] === '}') {
        index++;
        return;
      }
      expect("',' or '}' after the property value");
    }
  };
  const array = () => {
    index++;
    whitespace();
    if (text[index] === ']') {
      index++;
      return;
    }
    for (;;) {
      whitespace();
      if (text[index] === ']') expect('a value after "," (a trailing comma is not JSON)');
      value();
      whitespace();
      if (text[index] === ',') {
        index++;
        continue;
      }
      if (text[index] === ']') {
        index++;
        return;
      }
      expect("',' or ']' after the array element");
    }
  };
  try {
    value();
    whitespace();
    if (index < text.length) throw new Fault(index, 'Unexpected text after the JSON value');
    return undefined;
  } catch (error) {
    // Nested past the stack (thousands of brackets): no place to name, the caller says "not valid JSON".
    if (error instanceof RangeError) return undefined;
    if (!(error instanceof Fault)) throw error;
    return { ...lineAndColumn(text, error.at), message: error.message };
  }
}

function lineAndColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < at && index < text.length; index++) {
    if (text[index] === '\n') {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}
