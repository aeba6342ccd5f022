import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import type { Ctx } from "../../http/context.js";
import { operation } from "../../http/operation.js";
import { ApiError, badRequest } from "../../http/errors.js";
import { readBytes } from "../../http/validate.js";
import { header } from "../../http/context.js";
import type { CertificateRecord } from "../../store/management.js";
import { requireEnabled } from "../../extensions/settings.js";
import { pathApp } from "../apps/routes.js";
import { serviceReply } from "./reply.js";

/**
 * Push certificates: the uploaded APNs file is recorded (name, type, size, digest and what it says about itself:
 * the topic and expiry of a .p12, that a .p8 key parses) and shown by query-certificates. Nothing ever uses it
 * to contact Apple.
 */

const CERTIFICATE_LIMIT_BYTES = 64 * 1024;

/** Reads the multipart body (bounded) and returns the `certificate` file part. */
async function certificateFile(c: Ctx): Promise<{ name: string; bytes: Buffer }> {
  const type = header(c, "content-type") ?? "";
  if (!/^multipart\/form-data/i.test(type))
    throw new ApiError("ERR_BAD_REQUEST", 415, "The request body must be multipart/form-data with the file in the certificate field.");
  const raw = await readBytes(c, CERTIFICATE_LIMIT_BYTES); // counted as it arrives: a chunked body stops at the limit
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest({ body: ["The request body must be valid multipart/form-data."] });
  }
  const file = form.get("certificate");
  if (file === null || typeof file === "string") throw badRequest({ certificate: ["The certificate field is required and must be a file."] });
  const bytes = Buffer.from(await file.arrayBuffer());
  if (bytes.length === 0) throw badRequest({ certificate: ["The certificate must not be empty."] });
  return { name: file.name || "certificate", bytes };
}

/** The certificate inside a .p12 without a password: its subject, topic (UID) and expiry. Undefined when unreadable. */
function readP12(bytes: Buffer): Pick<CertificateRecord, "bundleId" | "subject" | "expiresAt"> | undefined {
  try {
    const context = createSecureContext({ pfx: bytes }).context as { getCertificate(): Buffer | null };
    const der = context.getCertificate();
    if (!der) return undefined;
    const cert = new X509Certificate(der);
    const uid = /(?:^|\n)UID=([^\n]+)/.exec(cert.subject)?.[1];
    const out: Pick<CertificateRecord, "bundleId" | "subject" | "expiresAt"> = {
      subject: cert.subject.replace(/\n/g, ", "),
      expiresAt: Math.floor(Date.parse(cert.validTo) / 1000),
    };
    if (uid) out.bundleId = uid;
    return out;
  } catch {
    return undefined;
  }
}

function isP8(bytes: Buffer): boolean {
  try {
    return createPrivateKey(bytes.toString("utf8")).type === "private";
  } catch {
    return false;
  }
}

function certificateView(r: CertificateRecord) {
  return { ...r, expiresAt: r.expiresAt ?? null, bundleId: r.bundleId ?? null };
}

async function upload(c: Ctx, type: "p12" | "p8") {
  const started = performance.now();
  const app = pathApp(c);
  requireEnabled(app, "push-notification");
  const { name, bytes } = await certificateFile(c);
  const record: CertificateRecord = {
    type,
    fileName: name.slice(0, 255),
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    uploadedAt: c.get("emulator").clock.now(),
  };
  if (type === "p8") {
    if (!isP8(bytes)) throw badRequest({ certificate: ["The certificate must be a .p8 private key (PEM)."] });
  } else Object.assign(record, readP12(bytes));
  // One credential of each kind: a new upload replaces the previous one.
  app.management.certificates = [...app.management.certificates.filter((r) => r.type !== type), record];
  const has = (t: string) => app.management.certificates.some((r) => r.type === t);
  const body = type === "p12" ? { certificate_p12: true, certificate_p8: has("p8") } : { success: true };
  return serviceReply(c, body, started);
}

export const certificates = [
  operation({
    id: "upload-push-notification-certificate-p12",
    method: "POST",
    path: "/apps/:appId/extensions/push-notification/v1/upload-certificate-p12",
    plane: "management",
    body: "raw", // multipart: the certificate file
    handler: (c) => upload(c, "p12"),
  }),
  operation({
    id: "upload-push-notification-certificate-p8",
    method: "POST",
    path: "/apps/:appId/extensions/push-notification/v1/upload-certificate-p8",
    plane: "management",
    body: "raw",
    handler: (c) => upload(c, "p8"),
  }),
  operation({
    id: "query-push-notification-certificates",
    method: "GET",
    path: "/apps/:appId/extensions/push-notification/v1/query-certificates",
    plane: "management",
    handler: (c) => {
    const started = performance.now();
    const app = pathApp(c);
    requireEnabled(app, "push-notification");
    const list = app.management.certificates;
    return serviceReply(
      c,
      {
        success: true,
        certificate_p12: list.some((r) => r.type === "p12"),
        certificate_p8: list.some((r) => r.type === "p8"),
        certificates: list.map(certificateView),
      },
      started,
    );
    },
  }),
];
