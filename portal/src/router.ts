// Client-side routes under /portal/ with the history API (the server answers index.html for all of
// them). Pages link with <Link href="/charges">; paths here never carry the /portal prefix.
import { createElement, type AnchorHTMLAttributes, type ComponentChildren, type TargetedMouseEvent } from "preact";
import { useEffect, useState } from "preact/hooks";

const BASE = "/portal";
const CHANGE = "portal:navigate";

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === "" ? "/" : path;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", BASE + path);
  else history.pushState(null, "", BASE + path);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current path and query (`/charges?status=pending`), re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: currentPath(), query: new URLSearchParams(location.search) });
  const [where, setWhere] = useState(read);
  useEffect(() => {
    const update = () => setWhere(read());
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return where;
}

/** `/charges/:id` against `/charges/abc` → `{ id: "abc" }`; `undefined` when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = got[index]!;
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(actual);
    else if (part !== actual) return undefined;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { href: string; children?: ComponentChildren };

/** An ordinary link (it opens in a new tab as usual) that navigates in place on a plain click. */
export function Link({ href, onClick, ...rest }: LinkProps) {
  return createElement("a", {
    ...rest,
    href: BASE + href,
    onClick: (event: TargetedMouseEvent<HTMLAnchorElement>) => {
      if (typeof onClick === "function") onClick(event);
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(href);
    },
  });
}
