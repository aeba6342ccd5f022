import type { Browser, Page } from "playwright-core";

/**
 * A 1280×800 page whose errors are collected in `problems`: a refused API call is logged by the browser as a failed
 * resource; anything else is a problem of the page.
 */
export async function watchedPage(browser: Browser, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && problems.push(m.text()));
  page.setDefaultTimeout(5000);
  return page;
}
