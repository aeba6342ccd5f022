// The built emulator for the realtime benchmark: users bench-0..N-1 with the auth tokens tok-0..tok-N-1, and the
// group bench-group whose members are bench-0..bench-{M}. Usage: node realtime.mjs '{"users": N, "members": M}'
// Prints `READY <url> {}`; the bench reads this process's RSS from /proc.
import { startEmulator } from "../../dist/index.js";

const spec = JSON.parse(process.argv[2] ?? "{}");
const e = await startEmulator({ port: 0, quiet: true, journalSize: 0 });
const app = e.store.defaultApp;
const now = Math.floor(Date.now() / 1000);
for (let i = 0; i < spec.users; i++) {
  const uid = `bench-${i}`;
  app.addUser({ uid, name: `Bench ${i}`, role: "default", tags: [], status: "offline", createdAt: now });
  app.addToken({ uid, authToken: `tok-${i}`, createdAt: now });
}
app.groups.add({ guid: "bench-group", name: "Bench group", type: "public", tags: [], createdAt: now });
for (let i = 0; i <= spec.members; i++) app.groups.addMember("bench-group", { uid: `bench-${i}`, scope: "participant", joinedAt: now });

console.log(`READY ${e.url} {}`);
process.on("SIGTERM", async () => {
  await e.close();
  process.exit(0);
});
