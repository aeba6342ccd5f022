// The application code under test: a thin client of the platform's REST API. It reads its address and key from
// the environment, as it would in production; only the values differ under test.
const baseUrl = () => process.env.CHAT_EMULATOR_BASE_URL!;
const headers = () => ({ apikey: process.env.CHAT_EMULATOR_API_KEY!, "content-type": "application/json" });

export async function createUser(uid: string, name: string): Promise<{ uid: string; name: string }> {
  const res = await fetch(`${baseUrl()}/users`, { method: "POST", headers: headers(), body: JSON.stringify({ uid, name }) });
  const body = await res.json();
  if (!res.ok) throw new Error(`${body.error.code}: ${body.error.message}`);
  return body.data;
}

export async function listUids(): Promise<string[]> {
  const res = await fetch(`${baseUrl()}/users?perPage=100`, { headers: headers() });
  return (await res.json()).data.map((u: { uid: string }) => u.uid);
}
