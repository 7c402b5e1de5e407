// Every failed call becomes one `ApiError` a page can show: a sentence in Spanish for the whole request
// (shown in a role=alert box) and, for a 400 ValidationError, one sentence per field of the form, worded
// from each entry's `rule` (`validationDetails`, shown under the field). The API's English `message` is
// never shown: the code and the rule decide what the person reads. The SDK throws `ResponseError` for an answer that is not
// 2xx and `FetchError` when no answer came; its error helpers read them, as they do for any integrator
// (`@cobro/sdk/errors`: the package's root also holds the Node-only helpers, which a browser bundle cannot take).
import { type ErrorCode, errorBodyOf, errorCodeOf, isNoAnswerError, isResponseError, type ValidationDetailLike, validationDetailsOf } from "@cobro/sdk/errors";
import { plural } from "./format.ts";

export interface ApiError {
  /** 0 when no answer came. */
  status: number;
  code: string;
  message: string;
  /** The field's path as the API names it (`amount`, `customer.email`) → what is wrong with it. */
  fieldErrors: Record<string, string>;
}

/**
 * What the portal says for each error code of the service (ErrorCode, generated from its catalogue), in
 * Spanish: a code added to the service fails the portal's typecheck until it is decided here. `null`: the
 * sentence for the answer's status says enough (most of these are the Integration API's, which the portal
 * does not call).
 */
const MESSAGES: Record<ErrorCode, string | null> = {
  ValidationError: "Revisá los datos marcados.",
  InvalidCredentialsError: "El email o la contraseña no son correctos.",
  AdminSessionEndedError: "Tu sesión terminó. Ingresá de nuevo.",
  UnauthorizedError: "Tu sesión terminó. Ingresá de nuevo.",
  ForbiddenError: "Tu usuario no tiene permiso para esta acción.",
  PasswordChangeRequiredError: "Antes de seguir tenés que cambiar tu contraseña.",
  SandboxOnlyError: "Esta herramienta existe solo en el Sandbox.",
  ProductionOnlyError: "Esta acción existe solo en Producción.",
  CvuNotInIntegrationError: "Ese CVU no es de una cuenta de tu integración.",
  SandboxClockBackwardsError: "El reloj del Sandbox solo avanza: elegí un momento posterior al actual.",
  AdminEmailAlreadyExistsError: "Ya hay un administrador con ese email.",
  MerchantEmailAlreadyExistsError: "Ya hay otra cuenta de comercio con ese email.",
  MerchantAccountClosedError: "La cuenta está cerrada: no admite cambios.",
  MerchantAccountNotActiveError: null,
  IntegrationClientNotFoundError: "No encontramos esa integración.",
  GoLiveRequestNotFoundError: "No encontramos esa solicitud de salida a producción.",
  GoLiveRequestDecidedError: "Esa solicitud ya fue resuelta.",
  MailUnavailableError: "No se puede enviar el email ahora: el servicio de correo no está configurado.",
  IntegrationClientUserNotFoundError: "Ese comercio ya no está vinculado a tu integración.",
  CommissionProposalNotFoundError: "No encontramos esa propuesta de comisión.",
  CommissionProposalNotPendingError: "Esa propuesta ya no está pendiente: el comercio la respondió, se reemplazó o venció.",
  PayoutLinkAlreadyAcceptedError: "La cuenta de cobro de comisiones ya fue aceptada: no se puede invitar otra.",
  PayoutLinkNotPendingError: "No hay una invitación pendiente para reenviar.",
  MessageCapRequestAlreadyPendingError: "Ya tenés un pedido pendiente: esperá a que se resuelva antes de pedir otro.",
  MessageCapRequestNotFoundError: "No encontramos ese pedido de mensajes.",
  MessageCapRequestNotPendingError: "Ese pedido ya fue resuelto.",
  ClientAdminNotFoundError: "No encontramos ese administrador.",
  NotImplemented: "Esta función todavía no está disponible.",
  PayloadTooLarge: "Lo que enviaste es demasiado grande.",
  // The integration's settings: URLs, webhooks, events, tenants, widget keys, logo.
  WebhookUrlBlockedError: "Esa URL no se acepta: apunta a una red interna o no usa https.",
  ClientUrlNotFoundError: "No encontramos esa URL.",
  IntegrationPaymentRequestNotFoundError: "No encontramos ese cobro en tu integración.",
  UnmatchedPaymentNotFoundError: "No encontramos ese pago sin imputar.",
  UnmatchedPaymentNotUnresolvedError: "Ese pago ya no está sin imputar: se imputó o se está devolviendo.",
  AssignmentPaymentRequestNotFoundError: "No encontramos ese cobro en tu integración.",
  AssignmentMerchantMismatchError: "Ese cobro es de otra cuenta de comercio que la que recibió el pago.",
  AssignmentPaymentRequestNotPayableError: "Ese cobro no admite este pago: está cancelado, pagado o no debía nada en la fecha de la transferencia.",
  UnmatchedPaymentReturnInProgressError: "Ya se está devolviendo ese pago: esperá el resultado del banco.",
  UnmatchedPaymentOfIntegrationError: "Ese pago es de una integración: lo devuelven sus administradores.",
  IdempotencyKeyReusedError: "Ese pedido ya se usó para otra operación: volvé a intentarlo.",
  ClientUrlNotTestableError: "Solo se prueban las URL de webhook.",
  UnknownWebhookEventError: "Uno de los eventos elegidos no existe en el catálogo.",
  WebhookSigningSecretNotFoundError: "Tu integración todavía no tiene secreto de firma.",
  EventNotFoundError: "No encontramos ese evento.",
  EventNotDeliverableError: "Ese evento no se enviaría ahora: no está entre tus eventos suscriptos o no hay una URL a la cual enviarlo.",
  TenantNotFoundError: "No encontramos esa sucursal.",
  TenantDuplicateKeyError: "Ya hay una sucursal con esa clave.",
  TenantWebhookUrlInvalidError: "Esa URL no se acepta: apunta a una red interna o no se pudo validar.",
  TenantHasBoundUsersError: "La sucursal tiene comercios asignados: no se puede eliminar.",
  IntegrationNotMultitenantError: "Las sucursales existen solo para integraciones multisucursal.",
  ApiKeysAlreadyExistError: "Tu integración ya tiene claves del widget.",
  ApiKeysNotCreatedError: "Primero creá la clave publicable.",
  InvalidImageError: "No se pudo leer la imagen, o tiene más de 4096 × 4096 píxeles.",
  UnsupportedMediaTypeError: "El archivo no es una imagen PNG, JPEG o WEBP.",
  // The sentence for the status says enough.
  InvalidMerchantToken: null,
  MissingAuthenticationData: null,
  IntegrationClientNotFound: null,
  NotAuthorizedAsUserOfIntegrationClient: null,
  InvalidRequestError: null,
  InvalidClientError: null,
  InvalidGrantError: null,
  InvalidScopeError: null,
  IntegrationSetupError: null,
  SignInFormExpiredError: null,
  PasswordResetLinkInvalidError: null,
  TooManyAttemptsError: null,
  TooManyEventStreamsError: null, // the portal opens no event stream
  InsufficientActiveAccountsError: null,
  ReferenceIdAlreadyExists: null,
  CustomerAlreadyAssociatedError: null,
  IntegrationDailyRequestLimitExceededError: null,
  IntegrationGlobalDailyMessageLimitExceededError: null,
  IntegrationDailyLimitUnavailableError: null,
  PaymentRequestNotFoundError: null,
  IntegrationNotReadyToCollectError: null,
  PaymentRequestCannotBeModified: null,
  PaymentRequestCannotBeCanceled: null,
  PaymentRequestCustomerCannotBeModified: null,
  BulkPaymentRequestValidationError: null,
  PayerLookupDailyLimitExceededError: null,
  PayerLookupProviderUnavailableError: null,
  PayerLookupQuotaUnavailableError: null,
  ClientUserNotFoundForBindingError: null,
  IntegrationCollectGroupNotFoundError: null,
  WidgetKeyInvalidError: null,
  MerchantUserNotLinkedError: null,
  BankFeedSignatureError: null,
  ClientIdMismatchError: null,
  MerchantInvitationLinkInvalidError: null,
  MerchantAccountNotInvitedError: null,
  LogoNotFoundError: null,
  RouteNotFound: null,
  MethodNotAllowed: null,
  InternalError: null,
  ServiceUnavailableError: null,
};

function messageForCode(code: string): string | null | undefined {
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code as ErrorCode] : undefined;
}

function messageForStatus(status: number): string {
  if (status === 0) return "No pudimos conectarnos con Cobro. Revisá tu conexión y probá de nuevo.";
  if (status === 401) return MESSAGES.UnauthorizedError!;
  if (status === 403) return MESSAGES.ForbiddenError!;
  if (status === 404) return "No encontramos lo que buscabas.";
  if (status === 409) return "La operación no se puede hacer en el estado actual.";
  if (status === 429) return "Hiciste demasiados pedidos seguidos. Esperá un momento y probá de nuevo.";
  if (status >= 500) return "Cobro tuvo un problema al responder. Probá de nuevo en unos minutos.";
  return "No se pudo completar la operación.";
}

const number = new Intl.NumberFormat("es-AR", { maximumFractionDigits: 4 });

/** What a text of a `format` must look like, in words. */
const FORMAT_MESSAGES: Record<string, string> = {
  uri: "Ingresá una URL completa, por ejemplo https://tu-sitio.com.ar/webhooks.",
  email: "Ingresá un email válido, por ejemplo nombre@empresa.com.ar.",
  date: "Ingresá una fecha real (dd/mm/aaaa).",
  "date-time": "Ingresá una fecha y hora válidas.",
  uuid: "El identificador no es válido.",
  duration: "Ingresá una duración válida.",
};

/**
 * A field's problem in Spanish, worded from the rule the API names (`rule`, with `limit` and `format`):
 * never from its English `message`, which is for developers. The field's own label is beside it.
 */
export function fieldMessage(detail: ValidationDetailLike): string {
  const limit = detail.limit ?? 0;
  switch (detail.rule) {
    case "required":
      return "Completá este campo.";
    case "notAccepted":
      return "Este dato no se acepta acá.";
    case "type":
    case "invalid":
    case undefined:
      return "El valor no es válido.";
    case "enum":
      return "Elegí una de las opciones.";
    case "minLength":
      return limit <= 1 ? "Completá este campo." : `Tiene que tener al menos ${plural(limit, "carácter", "caracteres")}.`;
    case "maxLength":
      return `Puede tener hasta ${plural(limit, "carácter", "caracteres")}.`;
    case "minItems":
      return `Tiene que tener al menos ${plural(limit, "elemento", "elementos")}.`;
    case "maxItems":
      return `Puede tener hasta ${plural(limit, "elemento", "elementos")}.`;
    case "minProperties":
      return "Cambiá al menos un dato.";
    case "maxProperties":
      return `Puede tener hasta ${plural(limit, "dato", "datos")}.`;
    case "minimum":
      return `Tiene que ser ${number.format(limit)} o más.`;
    case "exclusiveMinimum":
      return `Tiene que ser mayor que ${number.format(limit)}.`;
    case "maximum":
      return `Tiene que ser ${number.format(limit)} o menos.`;
    case "exclusiveMaximum":
      return `Tiene que ser menor que ${number.format(limit)}.`;
    case "decimals":
      return `Usá hasta ${plural(limit, "decimal", "decimales")}.`;
    case "multipleOf":
      return `Tiene que ser múltiplo de ${number.format(limit)}.`;
    case "pattern":
      return "El formato no es válido.";
    case "format":
      return FORMAT_MESSAGES[detail.format ?? ""] ?? "El formato no es válido.";
    case "exactlyOneOf":
      return "Completá uno solo de estos datos.";
    case "blank":
      return "Escribí algo más que espacios.";
    case "https":
      return "La URL tiene que empezar con https://.";
    case "url":
      return "Esa URL no se acepta: no puede apuntar a una red interna ni llevar usuario o contraseña.";
    case "taxDocument":
      return "Ingresá un CUIL o CUIT válido (11 dígitos) o un DNI (7 u 8 dígitos).";
    case "dateOrder":
      return "Las fechas no están en orden: revisá el desde y el hasta.";
    case "outOfRange":
      return "El valor está fuera de lo permitido.";
    case "nulCharacter":
      return "El texto tiene un carácter que no se acepta.";
    case "malformed":
      return "No se pudo leer lo que enviaste. Recargá la página y probá de nuevo.";
    default:
      return "El valor no es válido.";
  }
}

export async function apiErrorOf(error: unknown): Promise<ApiError> {
  if (isResponseError(error)) {
    const status = error.response.status;
    // Not JSON, or no body: the status alone says what happened.
    const body = await errorBodyOf(error);
    const code = errorCodeOf(body) ?? `HTTP${status}`;
    const fieldErrors: Record<string, string> = {};
    for (const detail of validationDetailsOf(body)) {
      if (!(detail.field in fieldErrors)) fieldErrors[detail.field] = fieldMessage(detail);
    }
    return { status, code, message: messageForCode(code) ?? messageForStatus(status), fieldErrors };
  }
  if (isNoAnswerError(error)) {
    return { status: 0, code: "NetworkError", message: messageForStatus(0), fieldErrors: {} };
  }
  return { status: 0, code: "UnexpectedError", message: "Algo salió mal en el portal. Recargá la página y probá de nuevo.", fieldErrors: {} };
}

/**
 * The field errors that no field of the form shows: they go in the general box, as their sentences alone
 * (a field's name is the API's, in English, and means nothing to the person at the form).
 */
export function unplacedFieldErrors(error: ApiError, fields: readonly string[]): string[] {
  const sentences = Object.entries(error.fieldErrors)
    .filter(([field]) => !fields.includes(field))
    .map(([, message]) => message);
  return [...new Set(sentences)];
}

/**
 * A refusal of one field's value that is not a ValidationError (a webhook address the service does not
 * accept) as the form shows it: its sentence under `field`, and the general box pointing there, as it
 * does for a ValidationError, instead of saying the same sentence a second time.
 */
export function placedUnderField(error: ApiError | undefined, code: string, field: string): ApiError | undefined {
  if (error?.code !== code) return error;
  return { ...error, message: MESSAGES.ValidationError!, fieldErrors: { ...error.fieldErrors, [field]: error.message } };
}
