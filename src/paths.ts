/**
 * The package's root folder (where package.json, fixtures/ and dist/ are), for files read at run time. This module
 * sits one folder below the root in every form the code runs in (src/paths.ts under tests, dist/paths.js in the
 * package, and the bundled CLI's files directly in dist/), so that the one `../` here stays right wherever the code
 * that needs a file ends up.
 */
export const PACKAGE_ROOT: URL = new URL("../", import.meta.url);
