// The email that tells the integration admin who asked to go live how it ended (in Spanish): approved,
// with what happens next in Production, or rejected, with the reviewer's reason.
import type { EmailMessage, Sender } from "../outbound/sender.ts";
import type { GoLiveRequestView } from "./go-live-requests.ts";
import { accountEmail, portalUrl } from "../outbound/account-email.ts";

export function goLiveOutcomeEmail(request: GoLiveRequestView, signInUrl: string): EmailMessage {
  const greeting = request.requestedByName ? `Hola ${request.requestedByName}:` : "Hola:";
  const approved = request.status === "approved";
  const body = approved
    ? [
        `Aprobamos el pase a producción de ${request.integrationName}.`,
        "",
        request.provisioning.status === "manual"
          ? "El equipo de la plataforma va a crear tu integración en producción y te avisará."
          : "Estamos creando tu integración en producción: vas a recibir otro correo con tu usuario y una contraseña temporal para ingresar allí.",
        "",
        "En producción empezás de cero: los cobros, comercios, secretos y datos de prueba del Sandbox no pasan. Pedí el clientSecret de producción con POST /my-integration/client-secret/rotate y volvé a configurar tu webhook.",
      ]
    : [
        `No aprobamos todavía el pase a producción de ${request.integrationName}.`,
        "",
        `Motivo: ${request.rejectionReason ?? ""}`,
        "",
        "Cuando lo hayas resuelto, volvé a pedirlo desde el portal (POST /my-integration/go-live).",
      ];
  const lines = [greeting, "", ...body, "", `Portal del Sandbox: ${signInUrl}`];
  const subject = approved ? `Cobro: ${request.integrationName} pasa a producción` : `Cobro: tu pedido de pase a producción de ${request.integrationName}`;
  return accountEmail(request.requestedByEmail, subject, lines);
}

/** Mails the outcome; a refusal is answered (the decision stands either way). */
export async function sendGoLiveOutcome(
  mail: Sender<EmailMessage>,
  request: GoLiveRequestView,
  adminPublicUrl: string,
): Promise<{ sent: true } | { sent: false; reason: string }> {
  const result = await mail.send(goLiveOutcomeEmail(request, portalUrl(adminPublicUrl)));
  if (result.outcome === "rejected" || result.outcome === "temporary_failure") return { sent: false, reason: result.reason };
  return { sent: true };
}
