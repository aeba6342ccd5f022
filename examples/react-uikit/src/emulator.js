// Where the emulator answers (host:port, HTTPS) and which app and user to sign in with. `npm start` fills in
// EMULATOR_HOST with the emulator it started (`?emulator=host:port` overrides it); the rest are the seeded demo
// app's values (docs/default-app.md).
const query = new URLSearchParams(location.search);
export const EMULATOR_HOST = query.get("emulator") ?? import.meta.env.VITE_EMULATOR_HOST ?? "127.0.0.1:4780";
export const APP_ID = import.meta.env.VITE_APP_ID ?? "62c95aeb231ec058";
export const REGION = "us";
export const AUTH_KEY = import.meta.env.VITE_AUTH_KEY ?? "061e844075e79a243c805c3185aaea9329233aca";
/** `?uid=superhero2` signs in as another demo user (open two tabs to chat between them). */
export const UID = query.get("uid") ?? "superhero1";
