/**
 * Globs over API paths ("/v3/messages*", "/v3/users/?/auth_tokens"): `*` matches any run of characters, slashes
 * included; `?` matches one character. Case-insensitive, like the platform's ids.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*") {
      while (glob[i + 1] === "*") i++;
      source += ".*";
    } else if (ch === "?") source += ".";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "i");
}
