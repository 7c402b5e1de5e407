package com.cobro.sdk.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.cobro.sdk.CobroClients;
import com.cobro.sdk.DueDates;
import com.cobro.sdk.ScriptedServer;
import com.cobro.sdk.errors.BadRequestException;
import com.cobro.sdk.errors.NoAnswerException;
import com.cobro.sdk.errors.RateLimitException;
import com.cobro.sdk.errors.UnprocessableException;
import com.cobro.sdk.generated.integration.api.PaymentRequestsApi;
import com.cobro.sdk.generated.integration.model.BulkCustomerInput;
import com.cobro.sdk.generated.integration.model.BulkPaymentRequestCreate;
import com.cobro.sdk.generated.integration.model.BulkPaymentRequestItem;
import com.cobro.sdk.generated.integration.model.CustomerInput;
import com.cobro.sdk.generated.integration.model.PaymentRequestCreate;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The retry guidance over real HTTP: the scripted server answers each create and read in turn. */
class ChargeRetryTest {
  private static final String CHARGE = "{\"referenceId\":\"INV-1\",\"amount\":1500.5}";
  private static final String NOT_FOUND = "{\"code\":\"PaymentRequestNotFoundError\",\"message\":\"no charge\",\"id\":\"e\"}";

  private ScriptedServer server;
  private final List<Duration> waits = new ArrayList<>();
  private ChargeRetry retry;

  @BeforeEach
  void start() throws Exception {
    server = new ScriptedServer();
    PaymentRequestsApi api = new PaymentRequestsApi(CobroClients.integration(server.url(), "id-token"));
    retry = new ChargeRetry(ChargeRetry.Charges.of(api), 3, ChargeRetry::defaultBackoff, waits::add);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static PaymentRequestCreate charge() {
    return new PaymentRequestCreate()
        .referenceId("INV-1")
        .description("Cuota")
        .dueDates(List.of(DueDates.of(LocalDate.of(2026, 12, 10))))
        .amount(1500.5)
        .customer(new CustomerInput().name("Juan Pérez").taxDocument("20301234563"));
  }

  private static BulkPaymentRequestCreate batch() {
    List<BulkPaymentRequestItem> items = new ArrayList<>();
    for (String referenceId : List.of("B-1", "B-2")) {
      items.add(new BulkPaymentRequestItem().referenceId(referenceId).description("Cuota").dueDates(List.of("2026-12-10")).amount(100.0)
          .customer(new BulkCustomerInput().name("Juan Pérez").taxDocument("20301234563")));
    }
    return new BulkPaymentRequestCreate().paymentRequests(items);
  }

  @Test
  void aCreatedChargeIsCreated() throws Exception {
    server.answer(201, CHARGE);
    CreateOrGetResult result = retry.createOrGet(charge());
    assertEquals(CreateOrGetResult.Outcome.CREATED, result.outcome());
    assertEquals("INV-1", result.paymentRequest().getReferenceId());
    assertEquals(List.of("POST /payment-request"), server.paths());
  }

  @Test
  void noAnswerThenFoundByReferenceIdIsExistingWithoutASecondCreate() throws Exception {
    server.noAnswer().answer(200, CHARGE);
    CreateOrGetResult result = retry.createOrGet(charge());
    assertEquals(CreateOrGetResult.Outcome.EXISTING, result.outcome());
    assertEquals(List.of("POST /payment-request", "GET /payment-request/INV-1"), server.paths());
  }

  @Test
  void aServerErrorThenNotFoundCreatesAgainWithTheSameReferenceId() throws Exception {
    server.answer(503, "{\"code\":\"ServiceUnavailableError\",\"message\":\"db\",\"id\":\"e\"}", java.util.Map.of("Retry-After", "1"))
        .answer(404, NOT_FOUND)
        .answer(201, CHARGE);
    CreateOrGetResult result = retry.createOrGet(charge());
    assertEquals(CreateOrGetResult.Outcome.CREATED, result.outcome());
    assertEquals(List.of("POST /payment-request", "GET /payment-request/INV-1", "POST /payment-request"), server.paths());
    assertEquals(server.received.get(0).body(), server.received.get(2).body(), "the same body, the same referenceId");
    assertEquals(List.of(Duration.ofMillis(500)), waits);
  }

  @Test
  void aReferenceIdConflictIsTheExistingCharge() throws Exception {
    server.answer(409, "{\"error\":\"ReferenceIdAlreadyExists\",\"message\":\"exists\",\"referenceId\":\"INV-1\"}").answer(200, CHARGE);
    CreateOrGetResult result = retry.createOrGet(charge());
    assertEquals(CreateOrGetResult.Outcome.EXISTING, result.outcome());
  }

  @Test
  void aRateLimitWithNoChargeIsThrownWithoutLooping() {
    server.answer(429, "{\"code\":\"IntegrationDailyRequestLimitExceededError\",\"message\":\"cap\",\"availableAt\":\"2026-11-29T00:00:00-03:00\"}")
        .answer(404, NOT_FOUND);
    RateLimitException error = assertThrows(RateLimitException.class, () -> retry.createOrGet(charge()));
    assertEquals("2026-11-29T03:00:00Z", error.availableAt().orElseThrow().toString());
    assertEquals(List.of("POST /payment-request", "GET /payment-request/INV-1"), server.paths());
  }

  @Test
  void aRateLimitWhoseChargeExistsIsExisting() throws Exception {
    server.answer(429, "{\"code\":\"IntegrationDailyRequestLimitExceededError\",\"message\":\"cap\"}").answer(200, CHARGE);
    assertEquals(CreateOrGetResult.Outcome.EXISTING, retry.createOrGet(charge()).outcome());
  }

  @Test
  void aRefusedChargeIsThrownAtOnce() {
    server.answer(400, "{\"code\":\"DueDateInThePastError\",\"message\":\"past\",\"id\":\"e\"}");
    BadRequestException error = assertThrows(BadRequestException.class, () -> retry.createOrGet(charge()));
    assertEquals("DueDateInThePastError", error.code());
    assertEquals(1, server.received.size());
  }

  @Test
  void noAnswerEveryTimeIsNoAnswerAfterTheAttempts() {
    server.close();
    assertThrows(NoAnswerException.class, () -> retry.createOrGet(charge()));
    assertEquals(List.of(Duration.ofMillis(500), Duration.ofMillis(1000)), waits);
  }

  @Test
  void aBulkWithoutAnAnswerWhoseFirstChargeExistsWasCreatedEarlier() throws Exception {
    server.noAnswer().answer(200, "{\"referenceId\":\"B-1\"}");
    CreateBulkResult result = retry.createBulkOrConfirm(batch());
    assertEquals(CreateBulkResult.Outcome.CREATED_EARLIER, result.outcome());
    assertNull(result.result());
    assertEquals(List.of("POST /payment-request/bulk", "GET /payment-request/B-1"), server.paths());
  }

  @Test
  void aRetriedBulkRefusedBecauseEveryReferenceIdExistsWasCreatedEarlier() throws Exception {
    String exists = "{\"message\":\"refused\",\"errors\":["
        + "{\"index\":0,\"referenceId\":\"B-1\",\"reason\":\"The referenceId already exists for this integration\"},"
        + "{\"index\":1,\"referenceId\":\"B-2\",\"reason\":\"The referenceId already exists for this integration\"}]}";
    server.noAnswer().answer(404, NOT_FOUND).answer(422, exists);
    assertEquals(CreateBulkResult.Outcome.CREATED_EARLIER, retry.createBulkOrConfirm(batch()).outcome());
  }

  @Test
  void aBulkRefusedForItsContentIsRejected() {
    String invalid = "{\"message\":\"refused\",\"errors\":[{\"index\":1,\"referenceId\":\"B-2\",\"reason\":\"Duplicate payer within the batch\"}]}";
    server.answer(422, invalid);
    UnprocessableException error = assertThrows(UnprocessableException.class, () -> retry.createBulkOrConfirm(batch()));
    assertEquals(ChargeRetry.BulkRetryInterpretation.REJECTED, ChargeRetry.interpretBulkRetry(error, batch()));
    assertEquals(1, error.errors().size());
  }
}
