package com.cobro.sdk.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cobro.sdk.CobroClients;
import com.cobro.sdk.ScriptedServer;
import com.cobro.sdk.generated.integration.ApiException;
import com.cobro.sdk.generated.integration.api.PaymentRequestsApi;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The generated clients' calls, over real HTTP, throw the typed exception of each answer. */
class TypedExceptionTest {
  private ScriptedServer server;
  private PaymentRequestsApi charges;

  @BeforeEach
  void start() throws Exception {
    server = new ScriptedServer();
    charges = new PaymentRequestsApi(CobroClients.integration(server.url(), "id-token-1"));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aValidationErrorCarriesCodeMessageIdAndEachDetail() {
    server.answer(400, "{\"code\":\"ValidationError\",\"message\":\"The request is not valid\",\"id\":\"err-1\",\"validationDetails\":["
        + "{\"field\":\"dueDates[1]\",\"message\":\"must be after the first\",\"rule\":\"order\"},"
        + "{\"field\":\"description\",\"message\":\"too long\",\"rule\":\"maxLength\",\"limit\":140},"
        + "{\"field\":\"customer\",\"message\":\"one of\",\"rule\":\"oneOf\",\"fields\":[\"email\",\"phoneNumber\"]}]}");
    ValidationException error = assertThrows(ValidationException.class, () -> charges.getPaymentRequest("INV-1"));
    assertEquals(400, error.status());
    assertEquals("ValidationError", error.code());
    assertTrue(error.hasCode("Validation"));
    assertEquals("The request is not valid", error.errorMessage());
    assertEquals("err-1", error.id());
    assertEquals(List.of(
        new ValidationDetail("dueDates[1]", "must be after the first", "order", null, null, List.of()),
        new ValidationDetail("description", "too long", "maxLength", 140.0, null, List.of()),
        new ValidationDetail("customer", "one of", "oneOf", null, null, List.of("email", "phoneNumber"))), error.validationDetails());
    assertInstanceOf(ApiException.class, error.getCause(), "the generated ApiException is the cause");
  }

  @Test
  void theBearerTokenIsSentOnEveryCall() {
    server.answer(404, "{\"code\":\"PaymentRequestNotFoundError\",\"message\":\"no charge\",\"id\":\"err-2\"}");
    assertThrows(NotFoundException.class, () -> charges.getPaymentRequest("INV-404"));
    assertEquals(List.of("Bearer id-token-1"), server.received.get(0).headers().get("Authorization"));
  }

  @Test
  void eachStatusHasItsType() {
    Map<Integer, Class<? extends CobroApiException>> types = Map.of(
        400, BadRequestException.class,
        401, AuthenticationException.class,
        403, ForbiddenException.class,
        404, NotFoundException.class,
        409, ConflictException.class,
        422, UnprocessableException.class,
        429, RateLimitException.class,
        500, ServerException.class,
        503, ServerException.class);
    types.forEach((status, type) -> {
      server.answer(status, "{\"code\":\"Some\",\"message\":\"m\",\"id\":\"e\"}");
      CobroApiException error = assertThrows(CobroApiException.class, () -> charges.getPaymentRequest("INV-1"));
      assertEquals(type, error.getClass(), "status " + status);
    });
  }

  @Test
  void aReferenceIdConflictHasTheRequestIdForAnId() {
    server.answer(409, "{\"error\":\"ReferenceIdAlreadyExists\",\"message\":\"exists\",\"referenceId\":\"INV-1\"}", Map.of("X-Request-Id", "req-9"));
    ConflictException error = assertThrows(ConflictException.class, () -> charges.getPaymentRequest("INV-1"));
    assertTrue(error.hasCode("ReferenceIdAlreadyExistsError"));
    assertFalse(error.hasCode("CustomerAlreadyAssociated"));
    assertEquals("req-9", error.id());
  }

  @Test
  void aPlainTextErrorIsItsMessage() {
    server.answer(502, "Bad gateway");
    ServerException error = assertThrows(ServerException.class, () -> charges.getPaymentRequest("INV-1"));
    assertNull(error.code());
    assertEquals("Bad gateway", error.errorMessage());
  }

  @Test
  void aRateLimitSaysWhenTheCapResets() {
    server.answer(429, "{\"code\":\"IntegrationDailyRequestLimitExceededError\",\"message\":\"cap\",\"availableAt\":\"2026-11-29T00:00:00-03:00\"}");
    RateLimitException daily = assertThrows(RateLimitException.class, () -> charges.getPaymentRequest("INV-1"));
    assertEquals(Instant.parse("2026-11-29T03:00:00Z"), daily.availableAt().orElseThrow());
    server.answer(429, "{\"code\":\"IntegrationGlobalDailyMessageLimitExceededError\",\"message\":\"cap\",\"availableAtUnixSeconds\":1795000000}");
    RateLimitException global = assertThrows(RateLimitException.class, () -> charges.getPaymentRequest("INV-1"));
    assertEquals(Instant.ofEpochSecond(1_795_000_000L), global.availableAt().orElseThrow());
  }

  @Test
  void noAnswerIsNoAnswerException() {
    // A create whose connection closes without an answer (the JDK's client resends a GET once, never a POST).
    server.noAnswer();
    assertThrows(NoAnswerException.class, () -> charges.createPaymentRequest(new com.cobro.sdk.generated.integration.model.PaymentRequestCreate().referenceId("INV-1")));
    // Nobody listening.
    server.close();
    assertThrows(NoAnswerException.class, () -> charges.getPaymentRequest("INV-1"));
  }

  @Test
  void dateQueryParametersAreCalendarDays() throws Exception {
    server.answer(200, "[]", Map.of("X-Total-Count", "0"));
    charges.listPaymentRequests(LocalDate.of(2026, 11, 1), LocalDate.of(2026, 11, 30), 50, 0);
    assertEquals("startDate=2026-11-01&endDate=2026-11-30&limit=50&offset=0", server.received.get(0).query());
  }
}
