import { startSimulator } from '../server/sim/simulator.ts';
import { downloadPhoto } from '../server/photos/download.ts';
import { PhotoHostAllowList } from '../server/photos/hosts.ts';
import { makeVariants } from '../server/photos/variants.ts';
const sim = await startSimulator({ listings: 40 });
const h = { 'X-Api-Key': sim.apiKey, Authorization: `Bearer ${sim.accessToken}` };
const list = await (await fetch(`${sim.baseUrl}/properties/residential/sale/available?pagesize=100`, { headers: h })).json();
let t = performance.now();
const urls: string[] = [];
for (const item of list.items) {
  await new Promise((r) => setTimeout(r, 110));
  const photos = await (await fetch(`${sim.baseUrl}/properties/${item.id}/photos?pagesize=100`, { headers: h })).json();
  urls.push(...photos.items.map((p: any) => p.url));
}
console.log('photo lists', list.items.length, (performance.now() - t).toFixed(0), 'ms');
const allow = new PhotoHostAllowList([new URL(sim.origin).host]);
t = performance.now();
const bufs: Buffer[] = [];
for (const url of urls) bufs.push((await downloadPhoto(url, { allowList: allow, maxBytes: 1e8 })).bytes);
console.log('downloads', urls.length, (performance.now() - t).toFixed(0), 'ms', bufs[0].length);
t = performance.now();
for (let i = 0; i < 10; i++) await makeVariants(bufs[i], 'b'.repeat(31) + i, '/tmp/vt2', [320, 640]);
console.log('variants x10', (performance.now() - t).toFixed(0), 'ms');
await sim.close();
