// The frame of every signed-in page: a skip link, the header with the environment (Sandbox or Producción),
// who is signed in and "Salir", the menu of the admin's role (a toggle on narrow screens) and the page
// itself in <main>.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "../router.ts";
import type { SignedInAdmin } from "../session.ts";
import { ENVIRONMENT_LABELS, type Environment } from "../environment.ts";

export interface MenuItem {
  href: string;
  label: string;
}

export interface LayoutProps {
  admin: SignedInAdmin;
  environment: Environment;
  menu: MenuItem[];
  path: string;
  onSignOut: () => void;
  children: ComponentChildren;
}

function isCurrent(item: MenuItem, path: string): boolean {
  return item.href === "/" ? path === "/" : path === item.href || path.startsWith(`${item.href}/`);
}

export function Layout({ admin, environment, menu, path, onSignOut, children }: LayoutProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  useEffect(() => {
    setMenuOpen(false);
    // After a navigation, keyboard and screen-reader users start at the new page's content.
    if (firstRender.current) firstRender.current = false;
    else main.current?.focus();
  }, [path]);
  return (
    <div class="layout">
      <a class="skip-link" href="#contenido">
        Ir al contenido
      </a>
      <header class="topbar">
        <span class="brand">Cobro</span>
        <span class={`badge badge-environment badge-${environment}`} data-testid="environment">
          {ENVIRONMENT_LABELS[environment]}
        </span>
        <span class="role">{admin.role === "PLATFORM_ADMIN" ? "Administración de la plataforma" : "Administración de la integración"}</span>
        <button type="button" class="menu-toggle button-secondary" aria-expanded={menuOpen} aria-controls="menu" onClick={() => setMenuOpen(!menuOpen)}>
          Menú
        </button>
        <span class="who">{admin.email}</span>
        <button type="button" class="button-secondary" onClick={onSignOut}>
          Salir
        </button>
      </header>
      <nav id="menu" class={menuOpen ? "menu menu-open" : "menu"} aria-label="Secciones">
        <ul>
          {menu.map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={isCurrent(item, path) ? "page" : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="contenido" tabIndex={-1} ref={main}>
        {children}
      </main>
    </div>
  );
}
