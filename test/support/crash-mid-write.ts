/**
 * Replaces a file with writeFileAtomic and dies (SIGKILL, as a crash or the OOM killer would)
 * once the new text is on disk and before it takes the file's name: what a reader finds then is
 * what a crash mid-edit leaves.
 *
 *   node --import tsx test/support/crash-mid-write.ts <file> <new text>
 */
import { writeFileAtomic } from '../../server/runtime/atomic-file.ts';

const [file, text] = process.argv.slice(2);
if (!file || text === undefined) {
  console.error('usage: crash-mid-write.ts <file> <new text>');
  process.exit(2);
}
writeFileAtomic(file, text, {
  mode: 0o600,
  backup: `${file}.bak`,
  beforeRename: () => {
    console.log('written, not renamed');
    process.kill(process.pid, 'SIGKILL');
  },
});
console.log('renamed');
