// The baseline: a bare Hono app on @hono/node-server answering a fixed JSON body.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const body = { data: { uid: "superhero1", name: "Iron Man", status: "offline", role: "default", createdAt: 1700000000 } };
const app = new Hono().all("*", (c) => c.json(body));
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`READY http://127.0.0.1:${info.port} {}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
