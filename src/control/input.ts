import { badRequest, keyedMap, type Details } from "../http/errors.js";

type Obj = Record<string, unknown>;

/**
 * Checks control-API bodies field by field and collects every problem (Laravel-style sentences keyed by dotted
 * field names, like the platform's validation errors); `done()` throws them as one 400 ERR_BAD_REQUEST.
 * Unknown fields are refused, so that a typo ("latency" for "latencyMs") cannot be silently ignored.
 */
export class Input {
  readonly details: Details = keyedMap();

  fail(name: string, message: string): undefined {
    (this.details[name] ??= []).push(message);
    return undefined;
  }

  /** `v` as an object (absent: `{}` unless required), refusing fields outside `allowed`. */
  object(v: unknown, name: string, allowed: readonly string[], required = false): Obj | undefined {
    if (v === undefined || v === null) return required ? this.fail(name, `The ${name} field is required.`) : {};
    if (typeof v !== "object" || Array.isArray(v)) return this.fail(name, `The ${name} must be an object.`);
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) this.fail(join(name, k), `The ${join(name, k)} field is not allowed.`);
    }
    return v as Obj;
  }

  number(
    v: unknown,
    name: string,
    opts: { min?: number; max?: number; integer?: boolean; required?: boolean } = {},
  ): number | undefined {
    if (v === undefined || v === null) return opts.required ? this.fail(name, `The ${name} field is required.`) : undefined;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n)) return this.fail(name, `The ${name} must be a number.`);
    if (opts.integer && !Number.isInteger(n)) return this.fail(name, `The ${name} must be an integer.`);
    const { min = -Infinity, max = Infinity } = opts;
    if (n < min || n > max) {
      const range = max === Infinity ? `at least ${min}` : min === -Infinity ? `at most ${max}` : `between ${min} and ${max}`;
      return this.fail(name, `The ${name} must be ${range}.`);
    }
    return n;
  }

  string(
    v: unknown,
    name: string,
    opts: { in?: readonly string[]; pattern?: RegExp; max?: number; required?: boolean } = {},
  ): string | undefined {
    if (v === undefined || v === null || v === "")
      return opts.required ? this.fail(name, `The ${name} field is required.`) : undefined;
    if (typeof v !== "string") return this.fail(name, `The ${name} must be a string.`);
    if (opts.max !== undefined && v.length > opts.max)
      return this.fail(name, `The ${name} may not be greater than ${opts.max} characters.`);
    if (opts.in && !opts.in.includes(v)) return this.fail(name, `The selected ${name} is invalid.`);
    if (opts.pattern && !opts.pattern.test(v)) return this.fail(name, `The ${name} format is invalid.`);
    return v;
  }

  boolean(v: unknown, name: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") return this.fail(name, `The ${name} field must be true or false.`);
    return v;
  }

  get ok(): boolean {
    return Object.keys(this.details).length === 0;
  }

  done(): void {
    if (!this.ok) throw badRequest(this.details);
  }
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

/** Validation details as one line (the sentences name their fields), for errors thrown to programmatic callers. */
export function detailsLine(details: Details | undefined): string {
  return Object.values(details ?? {})
    .flat()
    .join(" ");
}
