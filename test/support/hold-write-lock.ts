/**
 * Holds SQLite's write lock on a relay store from another process, as a backup tool, a second
 * relay or a stuck operator shell would: `BEGIN IMMEDIATE`, wait, then roll back.
 *
 *   node --import tsx test/support/hold-write-lock.ts <relay.db> <seconds>
 *
 * Prints "locked" once it holds the lock and "released" when it lets go.
 */
import Database from 'better-sqlite3';

const [file, seconds] = process.argv.slice(2);
if (!file || !(Number(seconds) > 0)) {
  console.error('usage: hold-write-lock.ts <relay.db> <seconds>');
  process.exit(2);
}
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 10000');
db.exec('BEGIN IMMEDIATE');
console.log('locked');
setTimeout(
  () => {
    db.exec('ROLLBACK');
    db.close();
    console.log('released');
  },
  Number(seconds) * 1000,
);
