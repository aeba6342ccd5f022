import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What the client plane's JWT says: whose session it opens, through which auth token. */
export interface JwtClaims {
  appId: string;
  uid: string;
  authToken: string;
  /** A call token (the calls plane's `call_tokens`): the call session it is for. */
  sessionId?: string;
  /** A call token's payload as the calls SDK reads it (`data.sessionId`, `data.user`...; see callTokenClaims). */
  data?: Record<string, unknown>;
  room?: string;
  iat: number;
}

const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url");
const HEADER = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));

/**
 * Issues and checks the `jwt` that `PUT /me` hands the SDK and its WebSocket `auth` frame sends back (HS256 with a
 * secret made at start, so a restarted emulator refuses old tokens and the SDK logs in again).
 */
export class Jwt {
  private readonly secret = randomBytes(32);

  sign(claims: Omit<JwtClaims, "iat">, nowSeconds: number): string {
    const body = `${HEADER}.${b64(JSON.stringify({ ...claims, iat: nowSeconds }))}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The claims of a token this emulator signed, or undefined for anything else. */
  verify(token: unknown): JwtClaims | undefined {
    if (typeof token !== "string" || token.length > 4096) return undefined;
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
    const expected = Buffer.from(this.mac(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as JwtClaims;
      return typeof claims.appId === "string" && typeof claims.uid === "string" && typeof claims.authToken === "string" ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac("sha256", this.secret).update(body).digest("base64url");
  }
}
