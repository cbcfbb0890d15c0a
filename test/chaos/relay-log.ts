import { readFileSync } from 'node:fs';

/**
 * A relay's JSON log as entries, in order (lines that are not JSON, such as a crash's stack, left
 * out); none when the file is not there (a relay that never started).
 */
export function relayLogEntries<Entry extends object>(file: string): Entry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: Entry[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      entries.push(JSON.parse(line) as Entry);
    } catch {
      // Not a JSON line (cut short by a kill).
    }
  }
  return entries;
}
