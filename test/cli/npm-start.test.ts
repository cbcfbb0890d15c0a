// `npm start` as a user runs it: npm runs the start script in a shell, and a signal sent to npm
// (`kill <pid of npm start>`, a process manager, a terminal closing) must stop the relay and free
// its port, not leave it running orphaned under a shell that died.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { runningRelay } from '../../server/ops/instance.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-npm-start-'));
let relayPid: number | undefined;
afterAll(() => {
  // A relay left running (the failure this test looks for) is not left behind by the test.
  if (relayPid !== undefined && alive(relayPid)) process.kill(relayPid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('stops the relay and frees its port when npm is sent SIGTERM', async () => {
    // --ignore-scripts makes scripts/start.mjs skip its preparation (dependencies and the widget build), not the relay.
    const npm = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
      cwd: projectRoot,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SIM_LISTINGS: '4', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (chunk) => (output += String(chunk)));
    npm.stderr!.on('data', (chunk) => (output += String(chunk)));
    const deadline = Date.now() + 60_000;
    let line: { url?: string } | undefined;
    while (!line && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const found = output.split('\n').find((text) => text.includes('estate-embed relay listening on'));
      if (found) line = JSON.parse(found) as { url: string };
    }
    expect(line, `no "listening" line; output:\n${output.slice(-2000)}`).toBeDefined();
    const port = Number(new URL(line!.url!).port);
    // The relay marks its DATA_DIR with its pid (ops/instance.ts).
    relayPid = runningRelay(dataDir)!.pid;
    expect(relayPid).not.toBe(npm.pid);
    expect(await listening(port)).toBe(true);

    npm.kill('SIGTERM');
    await once(npm, 'exit');
    const stopBy = Date.now() + 15_000;
    while ((alive(relayPid) || (await listening(port))) && Date.now() < stopBy) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(relayPid), 'the relay process outlived npm').toBe(false);
    expect(await listening(port), 'the port is still bound').toBe(false);
    expect(output).toContain('"signal":"SIGTERM","msg":"shutting down"');
  }, 90_000);
});
