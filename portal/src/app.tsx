// The portal: the sign-in screens until there is a session (and the forced password change before
// anything else), then the pages of the admin's role. A new page is one entry in its role's routes.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Empty, Loading } from "./components/feedback.tsx";
import { Layout, type MenuItem } from "./components/layout.tsx";
import { ChangePassword } from "./pages/change-password.tsx";
import { ChargeDetail } from "./pages/charge-detail.tsx";
import { ChargeList } from "./pages/charges.tsx";
import { Dashboard } from "./pages/dashboard.tsx";
import { DailyStatementPage } from "./pages/daily-statement.tsx";
import { Earnings } from "./pages/earnings.tsx";
import { GoLive } from "./pages/go-live.tsx";
import { MerchantList } from "./pages/merchants.tsx";
import { MessageCap } from "./pages/message-cap.tsx";
import { Offer } from "./pages/offer.tsx";
import { PayoutLink } from "./pages/payout-link.tsx";
// The integration's settings.
import { useIntegrationType } from "./integration-type.ts";
import { EventLog } from "./pages/events.tsx";
import { MyAuditLog } from "./pages/audit-log.tsx";
import { PlatformAuditLog } from "./pages/platform/audit-log.tsx";
import { Profile } from "./pages/profile.tsx";
import { Tenants } from "./pages/tenants.tsx";
import { Webhooks } from "./pages/webhooks.tsx";
import { WidgetKeys } from "./pages/widget-keys.tsx";
import { ClientDetail } from "./pages/platform/client-detail.tsx";
import { ClientList } from "./pages/platform/clients.tsx";
import { GoLiveReview } from "./pages/platform/go-live-review.tsx";
import { MessageCapReview } from "./pages/platform/message-cap-review.tsx";
import { PlatformEarnings } from "./pages/platform/platform-earnings.tsx";
import { MerchantAccounts } from "./pages/platform/merchant-accounts.tsx";
import { SandboxTools } from "./pages/sandbox.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { UnmatchedPaymentDetail, UnmatchedPaymentList } from "./pages/unmatched-payments.tsx";
import { matchPath, navigate, useLocation } from "./router.ts";
import { session, type AdminRole, type SessionState } from "./session.ts";
import { environment } from "./environment.ts";

interface Route {
  path: string;
  title: string;
  render: (params: Record<string, string>, query: URLSearchParams) => ComponentChildren;
  /** Listed in the menu under this label. */
  menu?: string;
  /** Listed only for `multitenant` integrations (the page answers the API's refusal to the others). */
  multitenantOnly?: boolean;
  /** A page of the Sandbox's tools: Production has neither the page nor its menu entry. */
  sandboxOnly?: boolean;
}

const ROUTES: Record<AdminRole, Route[]> = {
  INTEGRATION_ADMIN: [
    { path: "/", title: "Inicio", menu: "Inicio", render: () => <Dashboard /> },
    { path: "/charges", title: "Cobros", menu: "Cobros", render: (_, query) => <ChargeList query={query} /> },
    { path: "/charges/:id", title: "Cobro", render: ({ id }) => <ChargeDetail paymentRequestId={id!} /> },
    // Money that matched no charge: its list, and one to assign (imputar) by hand.
    { path: "/unmatched", title: "Pagos sin imputar", menu: "Pagos sin imputar", render: (_, query) => <UnmatchedPaymentList query={query} /> },
    { path: "/unmatched/:id", title: "Pago sin imputar", render: ({ id }) => <UnmatchedPaymentDetail unmatchedPaymentId={id!} /> },
    // Every transfer of a day and what became of it, with its CSV.
    { path: "/statements", title: "Resumen diario", menu: "Resumen diario", render: (_, query) => <DailyStatementPage query={query} /> },
    { path: "/sandbox", title: "Herramientas del Sandbox", menu: "Sandbox", sandboxOnly: true, render: () => <SandboxTools /> },
    { path: "/go-live", title: "Salida a producción", menu: "Salida a producción", sandboxOnly: true, render: () => <GoLive /> },
    // Merchants and money: commissions, the offer, where commissions are paid, earnings; the chat cap.
    { path: "/merchants", title: "Comercios", menu: "Comercios", render: () => <MerchantList /> },
    { path: "/offer", title: "Oferta", menu: "Oferta", render: () => <Offer /> },
    { path: "/payout-link", title: "Cuenta de cobro de comisiones", menu: "Cobro de comisiones", render: () => <PayoutLink /> },
    { path: "/earnings", title: "Ganancias", menu: "Ganancias", render: () => <Earnings /> },
    { path: "/message-cap", title: "Mensajes de chat", menu: "Mensajes de chat", render: () => <MessageCap /> },
    // The integration's own settings.
    { path: "/webhooks", title: "Webhooks", menu: "Webhooks", render: () => <Webhooks /> },
    { path: "/events", title: "Eventos", menu: "Eventos", render: (_, query) => <EventLog query={query} /> },
    { path: "/tenants", title: "Sucursales", menu: "Sucursales", multitenantOnly: true, render: () => <Tenants /> },
    { path: "/widget-keys", title: "Claves del widget", menu: "Claves del widget", render: () => <WidgetKeys /> },
    { path: "/profile", title: "Perfil de la integración", menu: "Perfil y logo", render: () => <Profile /> },
    { path: "/audit-log", title: "Registro de auditoría", menu: "Auditoría", render: (_, query) => <MyAuditLog query={query} /> },
  ],
  PLATFORM_ADMIN: [
    { path: "/clients", title: "Integraciones", menu: "Integraciones", render: () => <ClientList /> },
    { path: "/clients/:id", title: "Integración", render: ({ id }) => <ClientDetail integrationClientId={id!} /> },
    { path: "/merchant-accounts", title: "Cuentas de comercio", menu: "Cuentas de comercio", render: () => <MerchantAccounts /> },
    { path: "/go-live-requests", title: "Salidas a producción", menu: "Salidas a producción", sandboxOnly: true, render: () => <GoLiveReview /> },
    // The chat-cap queue and the platform's earnings.
    { path: "/message-cap-requests", title: "Pedidos de mensajes", menu: "Pedidos de mensajes", render: () => <MessageCapReview /> },
    { path: "/earnings", title: "Ganancias de la plataforma", menu: "Ganancias", render: () => <PlatformEarnings /> },
    { path: "/audit-log", title: "Registro de auditoría", menu: "Auditoría", render: (_, query) => <PlatformAuditLog query={query} /> },
  ],
};

function useSession(): SessionState {
  const [state, setState] = useState(session.state);
  useEffect(() => {
    setState(session.state); // it may have changed between the first render and this subscription
    return session.subscribe(setState);
  }, []);
  return state;
}

export function App() {
  const state = useSession();
  const { path, query } = useLocation();
  const integrationType = useIntegrationType(state.status === "signed-in" && !state.passwordChangeRequired ? state.admin.integrationClientId : null);

  if (state.status === "restoring") return <Loading label="Abriendo tu sesión…" />;
  if (state.status === "signed-out") {
    document.title = "Ingresar · Portal de Cobro";
    return <SignIn notice={state.notice} />;
  }
  if (state.passwordChangeRequired) {
    document.title = "Elegí tu contraseña · Portal de Cobro";
    return <ChangePassword />;
  }

  const routes = ROUTES[state.admin.role].filter((route) => !route.sandboxOnly || environment === "sandbox");
  const menu: MenuItem[] = routes
    .filter((route) => route.menu && (!route.multitenantOnly || integrationType === "multitenant"))
    .map((route) => ({ href: route.path, label: route.menu! }));
  let page: ComponentChildren = <Empty>Esta página no existe.</Empty>;
  let title = "Página no encontrada";
  let found = false;
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) {
      page = route.render(params, query);
      title = route.title;
      found = true;
      break;
    }
  }
  // A page of the other role (the platform admin's "/", or a page left open by the previous admin of
  // this tab), or a Sandbox page in Production, opens this role's first page instead.
  if (!found && Object.values(ROUTES).some((other) => other.some((route) => matchPath(route.path, path)))) {
    queueMicrotask(() => navigate(routes[0]!.path, { replace: true }));
    return <Loading />;
  }
  document.title = `${title} · Portal de Cobro`;
  return (
    <Layout admin={state.admin} environment={environment} menu={menu} path={path} onSignOut={() => void session.signOut()}>
      {page}
    </Layout>
  );
}
