// An integrator's backend against a local Cobro Sandbox, end to end, with the Java SDK:
//
//   1. link the merchant account through OAuth (authorization URL with state and PKCE, code exchange);
//   2. the integration admin's side: a session, the Sandbox's test tokens, the signing secret, and a webhook
//      receiver (the JDK's HttpServer) registered as the integration's webhook URL;
//   3. create a charge with two due dates and a surcharge (ChargeRetry.createOrGet: the retry guidance);
//   4. read it back, list the day's charges, and send the same referenceId again: a typed ConflictException;
//   5. simulate the payer's transfer (Admin API, Sandbox tools);
//   6. verify the payment_received webhook with WebhookVerifier (both signatures), and refuse a tampered copy;
//   7. delete the webhook URL it registered (left behind, it would keep receiving the integration's events).
//
// Run it from sdks/java (Java 17 and Maven; README.md, "Run the quick start"):
//   mvn -B -q package
//   java -cp "target/classes:$(cat target/classpath.txt)" examples/Quickstart.java ../../.data/sandbox.json
// (or COBRO_SANDBOX_FILE=…, or COBRO_SANDBOX_JSON='{…}'). The Sandbox file is what `npm start` writes on its first
// start. The Sandbox must accept a webhook URL on loopback: start it with COBRO_ALLOW_LOOPBACK_URLS=true.
//
// The last line printed is a JSON summary: {"referenceId", "state", "webhook", "tampered", "assignedTo", "assignedChargeState", "returnState"}.

import com.cobro.sdk.CobroClients;
import com.cobro.sdk.DueDates;
import com.cobro.sdk.errors.CobroApiException;
import com.cobro.sdk.errors.ConflictException;
import com.cobro.sdk.errors.NotFoundException;
import com.cobro.sdk.generated.admin.api.ClientUrlsApi;
import com.cobro.sdk.generated.admin.api.SandboxApi;
import com.cobro.sdk.generated.admin.api.UnmatchedPaymentsApi;
import com.cobro.sdk.generated.admin.api.WebhooksApi;
import com.cobro.sdk.generated.admin.model.ClientUrl;
import com.cobro.sdk.generated.admin.model.ClientUrlCreate;
import com.cobro.sdk.generated.admin.model.ClientUrlType;
import com.cobro.sdk.generated.admin.model.SimulatePaymentRequest;
import com.cobro.sdk.generated.admin.model.SimulatePaymentResult;
import com.cobro.sdk.generated.admin.model.TestTokens;
import com.cobro.sdk.generated.admin.model.UnmatchedPayment;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentAssignmentRequest;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentAssignmentResult;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentReason;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentReturnRequest;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentReturnResult;
import com.cobro.sdk.generated.admin.model.UnmatchedPaymentState;
import com.cobro.sdk.generated.admin.model.WebhookSigningSecret;
import com.cobro.sdk.generated.auth.api.AdminSessionApi;
import com.cobro.sdk.generated.auth.model.AdminLogin;
import com.cobro.sdk.generated.auth.model.AdminSession;
import com.cobro.sdk.generated.integration.api.MerchantApi;
import com.cobro.sdk.generated.integration.api.PaymentRequestsApi;
import com.cobro.sdk.generated.integration.model.CustomerInput;
import com.cobro.sdk.generated.integration.model.PaymentRequest;
import com.cobro.sdk.generated.integration.model.PaymentRequestCreate;
import com.cobro.sdk.generated.integration.model.PaymentRequestCreateSurcharge;
import com.cobro.sdk.generated.integration.model.PaymentRequestListItem;
import com.cobro.sdk.generated.integration.model.Surcharge;
import com.cobro.sdk.generated.integration.model.SurchargeType;
import com.cobro.sdk.oauth.AuthorizationStart;
import com.cobro.sdk.oauth.CobroOAuth;
import com.cobro.sdk.oauth.InMemoryTokenStore;
import com.cobro.sdk.oauth.MerchantTokens;
import com.cobro.sdk.retry.ChargeRetry;
import com.cobro.sdk.retry.CreateOrGetResult;
import com.cobro.sdk.webhook.WebhookVerificationException;
import com.cobro.sdk.webhook.WebhookVerifier;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Quickstart {
  private static final ObjectMapper JSON = new ObjectMapper();

  static void say(String message) {
    System.out.println("[quickstart] " + message);
  }

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (CobroApiException error) {
      System.err.println("[quickstart] failed: " + error.status() + " " + error.code() + " " + error.errorMessage() + " (id " + error.id() + ")");
      System.exit(1);
    }
  }

  static void run(String[] args) throws Exception {
    JsonNode sandbox = readSandbox(args);
    String integrationUrl = sandbox.path("integrationApiUrl").asText("http://localhost:3000");
    String authUrl = sandbox.path("authApiUrl").asText("http://localhost:3001");
    String adminUrl = sandbox.path("adminApiUrl").asText("http://localhost:3002");
    String clientId = sandbox.path("integration").path("clientId").asText();
    String clientSecret = sandbox.path("integration").path("clientSecret").asText();
    String redirectUri = sandbox.path("integration").path("redirectUri").asText();

    // 1. Link the merchant account (OAuth 2.0 authorization code with PKCE).
    CobroOAuth oauth = new CobroOAuth(authUrl, clientId, clientSecret);
    AuthorizationStart start = oauth.authorizationUrl(redirectUri); // keep start.state() and start.codeVerifier() in the session
    say("send the merchant's browser to " + start.url());
    Map<String, String> callback = browserSignsIn(start.url(), sandbox.path("merchant"));
    if (!start.state().equals(callback.get("state"))) {
      throw new IllegalStateException("the state that came back is not ours: refuse the callback");
    }
    MerchantTokens tokens = oauth.exchangeCode(callback.get("code"), redirectUri, start.codeVerifier());
    InMemoryTokenStore store = new InMemoryTokenStore(); // yours: a database row per merchant account
    store.save("merchant-1", tokens);
    say("merchant linked: idToken until " + tokens.expiresAt() + "; keep the refreshToken");
    var integration = CobroClients.integration(integrationUrl, oauth.idTokens(store, "merchant-1"));
    var me = new MerchantApi(integration).getMe();
    say("acting for merchant account " + me.getMerchantUserId() + " (" + (me.getFantasyName() != null ? me.getFantasyName() : me.getEmail()) + ")");

    // 2. The integration admin's side (usually done once, in the Admin API's console): an admin session.
    JsonNode adminCredentials = sandbox.path("integrationAdmin");
    AdminSession session = new AdminSessionApi(CobroClients.auth(authUrl))
        .adminLogin(new AdminLogin().email(adminCredentials.path("email").asText()).password(adminCredentials.path("password").asText()));
    var admin = CobroClients.admin(adminUrl, session.getIdToken());
    SandboxApi sandboxTools = new SandboxApi(admin);
    WebhooksApi webhooks = new WebhooksApi(admin);
    ClientUrlsApi clientUrls = new ClientUrlsApi(admin);

    // Sandbox test tokens: the integration's test merchant account, without the OAuth flow (to try the
    // Integration API in the Sandbox; a real merchant account is linked as in step 1).
    TestTokens testTokens = sandboxTools.createTestTokens();
    var testMerchant = new MerchantApi(CobroClients.integration(integrationUrl, testTokens.getIdToken()));
    say("test tokens: the Sandbox's test merchant account is " + testMerchant.getMe().getMerchantUserId());

    // The signing secret (created when the integration has none yet) and its scheme.
    WebhookSigningSecret signing;
    try {
      signing = webhooks.getWebhookSigningSecret();
    } catch (NotFoundException none) {
      signing = webhooks.rotateWebhookSigningSecret();
    }
    WebhookVerifier verifier = new WebhookVerifier(signing.getWebhookSigningSecret(), WebhookVerifier.Scheme.of(signing.getScheme().getValue()));

    WebhookReceiver receiver = new WebhookReceiver();
    UUID registeredUrlId = null;
    Map<String, Object> summary = new LinkedHashMap<>();
    try {
      ClientUrl registered = clientUrls.createClientUrl(new ClientUrlCreate().url(URI.create(receiver.url())).urlType(ClientUrlType.WEBHOOK));
      registeredUrlId = registered.getClientUrlId();
      say("webhook URL " + receiver.url() + " registered (receives the events: " + registered.getReceivesEvents() + ")");

      // 3. A charge with two due dates: from the day after the first, the surcharge applies (10% here).
      //    createOrGet is safe to call again after a timeout or a 5xx: the referenceId is the idempotency key.
      LocalDate today = LocalDate.parse(sandboxTools.getSandboxClock().getToday());
      String referenceId = "JAVA-EXAMPLE-" + Long.toString(System.currentTimeMillis(), 36);
      PaymentRequestsApi charges = new PaymentRequestsApi(integration);
      PaymentRequestCreate charge = new PaymentRequestCreate()
          .referenceId(referenceId)
          .description("Cuota de diciembre")
          .dueDates(List.of(DueDates.of(today.plusDays(5)), DueDates.of(today.plusDays(15))))
          .amount(1500.5)
          .surcharge(new PaymentRequestCreateSurcharge().type(SurchargeType.PERCENTAGE).value(10.0))
          // Reconciled by the payer's CUIL: the transfer below comes from this CUIL.
          .conciliationType(PaymentRequestCreate.ConciliationTypeEnum.CUIL)
          .customer(new CustomerInput().name("Juan Pérez").taxDocument("20301234563"))
          .sendWhatsappNotification(false)
          .sendEmailNotification(false);
      CreateOrGetResult created = new ChargeRetry(charges).createOrGet(charge);
      PaymentRequest createdCharge = created.paymentRequest();
      say("charge " + referenceId + " " + created.outcome() + ": " + createdCharge.getState().getValue() + ", pay " + createdCharge.getAmount()
          + " to CVU " + createdCharge.getCVU() + ", due " + createdCharge.getDueDates());

      // 4. Read it back, and list the day's charges (Argentina days, both ends included).
      PaymentRequest read = charges.getPaymentRequest(referenceId);
      LocalDate firstDue = DueDates.day(read.getDueDates().get(0));
      say("read back: " + read.getReferenceId() + " is " + read.getState().getValue() + ", first due " + firstDue);
      List<PaymentRequestListItem> listed = charges.listPaymentRequests(today, today, 100, 0);
      boolean isListed = listed.stream().anyMatch(item -> referenceId.equals(item.getReferenceId()));
      say("listed " + listed.size() + " charge(s) created on " + today + (isListed ? ", " + referenceId + " among them" : ", without " + referenceId));

      // The same referenceId again: a typed exception; decide by its type (status), then by its code.
      try {
        charges.createPaymentRequest(charge);
        throw new IllegalStateException("a second create with the same referenceId was accepted");
      } catch (ConflictException duplicate) {
        say("typed exceptions: the same referenceId again throws ConflictException " + duplicate.code() + " (id " + duplicate.id() + "), as expected");
      }

      // 5. The payer transfers (simulated: the Sandbox's stand-in for the bank).
      SimulatePaymentResult transfer = sandboxTools.simulatePayment(new SimulatePaymentRequest()
          .cvu(createdCharge.getCVU())
          .amount(1500.5)
          .externalAccountCvu("0000003100000000000017")
          .externalAccountCuil("20301234563")
          .externalAccountName("Juan Pérez"));
      say("transfer " + transfer.getIdTransaccion() + ": conciliated " + transfer.getConciliated());

      // 6. The webhook: both signatures verified over the raw body before anything in it is trusted.
      Duration timeout = Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("COBRO_WEBHOOK_TIMEOUT_SECONDS", "15")));
      Delivery delivery = receiver.waitFor(referenceId, timeout);
      JsonNode event = verifier.verify(delivery.rawBody(), delivery.headers());
      String webhookId = delivery.headers().get(WebhookVerifier.WEBHOOK_ID_HEADER.toLowerCase()).get(0);
      say("webhook " + webhookId + " verified (X-Service-Signature and Standard Webhooks): " + event.path("event").asText()
          + ", stateType " + event.path("stateType").asText() + " (deduplicate by " + WebhookVerifier.WEBHOOK_ID_HEADER + ")");
      // The same delivery with its body changed in transit: refused.
      byte[] tampered = new String(delivery.rawBody(), StandardCharsets.UTF_8).replace("1500.5", "1.5").getBytes(StandardCharsets.UTF_8);
      String refusal;
      try {
        verifier.verify(tampered, delivery.headers());
        throw new IllegalStateException("a tampered webhook was accepted");
      } catch (WebhookVerificationException expected) {
        refusal = expected.reason().name().toLowerCase();
        say("a tampered copy of the webhook is turned away (" + refusal + "), as it should be");
      }

      PaymentRequest paid = charges.getPaymentRequest(referenceId);
      Surcharge surcharge = paid.getSurcharge();
      say("charge " + referenceId + " is " + paid.getState().getValue() + " (surcharge " + surcharge.getType().getValue() + " " + surcharge.getValue()
          + " after the first due date)");

      // 7. Unmatched money: a transfer to a canceled charge's CVU matches no charge; the integration admin
      //    assigns it to the charge it was meant for, of the same merchant account.
      java.util.function.Function<String, PaymentRequestCreate> simpleCharge = suffix -> new PaymentRequestCreate()
          .referenceId(referenceId + "-" + suffix)
          .description("Cuota de diciembre")
          .dueDates(List.of(DueDates.of(today.plusDays(5))))
          .amount(800.0)
          .customer(new CustomerInput().name("Juan Pérez"))
          .sendWhatsappNotification(false)
          .sendEmailNotification(false);
      // (The charge it was meant for first: it takes the CVU the paid charge gave back, the canceled one a CVU of its own.)
      String meantFor = charges.createPaymentRequest(simpleCharge.apply("M")).getReferenceId();
      PaymentRequest canceled = charges.createPaymentRequest(simpleCharge.apply("C"));
      charges.cancelPaymentRequest(canceled.getReferenceId());
      SimulatePaymentResult late = sandboxTools.simulatePayment(new SimulatePaymentRequest()
          .cvu(canceled.getCVU())
          .amount(800.0)
          .externalAccountCvu("0000003100000000000017")
          .externalAccountCuil("20301234563")
          .externalAccountName("Juan Pérez"));
      UnmatchedPaymentsApi unmatched = new UnmatchedPaymentsApi(admin);
      List<UnmatchedPayment> unresolved = unmatched.listUnmatchedPayments(UnmatchedPaymentState.UNRESOLVED, UnmatchedPaymentReason.CANCELED, null, null,
          UUID.fromString(me.getMerchantUserId()), 20, 0).getItems();
      UnmatchedPayment money = unresolved.stream().filter(item -> item.getTransactionId().equals(late.getIdTransaccion())).findFirst().orElseThrow();
      UnmatchedPaymentAssignmentResult assignment = unmatched.assignUnmatchedPayment(money.getUnmatchedPaymentId(),
          new UnmatchedPaymentAssignmentRequest().referenceId(meantFor));
      say("unmatched transfer " + money.getTransactionId() + " (" + money.getReason().getValue() + ") assigned to " + assignment.getReferenceId() + ": "
          + assignment.getAssignedAmount() + " applied, the charge is " + assignment.getPaymentRequestState().getValue());
      //    Another transfer to the canceled charge's CVU is sent back to the account it came from.
      SimulatePaymentResult again = sandboxTools.simulatePayment(new SimulatePaymentRequest()
          .cvu(canceled.getCVU())
          .amount(800.0)
          .externalAccountCvu("0000003100000000000017")
          .externalAccountCuil("20301234563")
          .externalAccountName("Juan Pérez"));
      UnmatchedPayment toReturn = unmatched.listUnmatchedPayments(UnmatchedPaymentState.UNRESOLVED, UnmatchedPaymentReason.CANCELED, null, null,
          UUID.fromString(me.getMerchantUserId()), 20, 0).getItems().stream()
          .filter(item -> item.getTransactionId().equals(again.getIdTransaccion())).findFirst().orElseThrow();
      String idempotencyKey = UUID.randomUUID().toString(); // keep it: asked again with it (a lost answer), the same return is answered, not a second one
      UnmatchedPaymentReturnResult returned = unmatched.returnUnmatchedPayment(toReturn.getUnmatchedPaymentId(), idempotencyKey,
          new UnmatchedPaymentReturnRequest());
      say("unmatched transfer " + toReturn.getTransactionId() + " returned: " + returned.getAmount() + " to " + returned.getToCvu() + ", "
          + returned.getState().getValue());

      summary.put("referenceId", referenceId);
      summary.put("state", paid.getState().getValue());
      summary.put("listed", isListed);
      summary.put("webhook", "verified");
      summary.put("tampered", refusal);
      summary.put("assignedTo", assignment.getReferenceId());
      summary.put("assignedChargeState", assignment.getPaymentRequestState().getValue());
      summary.put("returnState", returned.getState().getValue());
    } finally {
      receiver.close();
      // 8. The receiver is gone: delete its URL, or it would keep the integration's events.
      if (registeredUrlId != null) {
        clientUrls.deleteClientUrl(registeredUrlId);
        say("webhook URL " + receiver.url() + " deleted");
      }
    }
    System.out.println(JSON.writeValueAsString(summary));
  }

  static JsonNode readSandbox(String[] args) throws Exception {
    String path = args.length > 0 ? args[0] : System.getenv("COBRO_SANDBOX_FILE");
    if (path != null) return JSON.readTree(Files.readString(Path.of(path)));
    String text = System.getenv("COBRO_SANDBOX_JSON");
    if (text == null) throw new IllegalArgumentException("pass the Sandbox file (Quickstart.java sandbox.json), or set COBRO_SANDBOX_FILE or COBRO_SANDBOX_JSON");
    return JSON.readTree(text);
  }

  /**
   * WHAT THE MERCHANT'S BROWSER DOES, not the integrator's code: open the authorization URL, sign in on Cobro's
   * screen, follow the redirect back to the redirect URI. Done over plain HTTP so that the example runs
   * unattended: read the form's hidden fields and its CSRF cookie, post the merchant's email and password, and
   * take the Location of the 303 instead of following it. Answers the callback's query.
   */
  static Map<String, String> browserSignsIn(String authorizationUrl, JsonNode merchant) throws Exception {
    HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    HttpResponse<String> screen = browser.send(HttpRequest.newBuilder(URI.create(authorizationUrl)).build(), HttpResponse.BodyHandlers.ofString());
    String page = screen.body();
    if (screen.statusCode() != 200) throw new IllegalStateException("the authorization screen answered " + screen.statusCode());
    Matcher action = Pattern.compile("<form[^>]*action=\"([^\"]+)\"").matcher(page);
    URI target = URI.create(authorizationUrl).resolve(action.find() ? action.group(1).replace("&amp;", "&") : "/integration/oauth2/complete-login");
    String cookie = screen.headers().firstValue("set-cookie").orElse("").split(";")[0];
    Map<String, String> form = new LinkedHashMap<>();
    form.put("transaction", hiddenField(page, "transaction"));
    form.put("csrf", hiddenField(page, "csrf"));
    form.put("email", merchant.path("email").asText());
    form.put("password", merchant.path("password").asText());
    StringBuilder body = new StringBuilder();
    form.forEach((name, value) -> body.append(body.length() == 0 ? "" : "&").append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
    HttpResponse<String> signIn = browser.send(HttpRequest.newBuilder(target)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Cookie", cookie)
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build(), HttpResponse.BodyHandlers.ofString());
    String location = signIn.headers().firstValue("location").orElse("");
    if (signIn.statusCode() != 303 || location.isEmpty()) throw new IllegalStateException("the sign-in answered " + signIn.statusCode());
    Map<String, String> query = new HashMap<>();
    for (String pair : URI.create(location).getRawQuery().split("&")) {
      String[] parts = pair.split("=", 2);
      query.put(URLDecoder.decode(parts[0], StandardCharsets.UTF_8), parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "");
    }
    return query;
  }

  static String hiddenField(String page, String name) {
    Matcher matcher = Pattern.compile("name=\"" + name + "\" value=\"([^\"]*)\"").matcher(page);
    return matcher.find() ? matcher.group(1).replace("&amp;", "&") : "";
  }

  /** A delivery as received: the raw body (the signatures are over the exact bytes) and the headers. */
  record Delivery(byte[] rawBody, Map<String, List<String>> headers) {}

  /** The integrator's webhook endpoint: answers 200 at once and keeps the delivery, to be verified before use. */
  static final class WebhookReceiver implements AutoCloseable {
    private final HttpServer server;
    private final List<Delivery> deliveries = new ArrayList<>();

    WebhookReceiver() throws Exception {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/webhooks/cobro", exchange -> {
        byte[] rawBody = exchange.getRequestBody().readAllBytes();
        Map<String, List<String>> headers = new HashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(), List.copyOf(values)));
        synchronized (deliveries) {
          deliveries.add(new Delivery(rawBody, headers));
          deliveries.notifyAll();
        }
        exchange.sendResponseHeaders(200, -1); // answer fast; do the work after (here: in run)
        exchange.close();
      });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks/cobro";
    }

    /** The first delivery whose body names {@code referenceId} (only read to pick it: verified before use). */
    Delivery waitFor(String referenceId, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      byte[] wanted = referenceId.getBytes(StandardCharsets.UTF_8);
      synchronized (deliveries) {
        while (true) {
          for (Delivery delivery : deliveries) {
            if (new String(delivery.rawBody(), StandardCharsets.UTF_8).contains(new String(wanted, StandardCharsets.UTF_8))) return delivery;
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) throw new IllegalStateException("no webhook for " + referenceId + " within " + timeout.toSeconds() + " s");
          deliveries.wait(Math.max(1, left / 1_000_000));
        }
      }
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
