/**
 * URLs the emulator calls (webhooks, bots, custom notification providers). One with a user name or password
 * (`https://user:password@host/`) cannot be called: fetch refuses it ("Request cannot be constructed from a URL
 * that includes credentials"), and the platform does not call such URLs either; credentials go in the endpoint's
 * basic authentication fields. Refused where the URL is given; never echoed where it is reported.
 */
export function holdsCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return false;
  }
}

export const CREDENTIALS_REFUSED = "may not hold a user name or password (user:password@): put them in the basic authentication fields (useBasicAuth, username, password)";
