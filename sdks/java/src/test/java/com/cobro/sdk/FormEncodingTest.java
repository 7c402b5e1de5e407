package com.cobro.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.cobro.sdk.generated.auth.api.OAuthApi;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The generated form operations write their body with the JDK (the generator replaces the native library's
 * Apache HttpComponents form entity): each name and value percent-encoded in UTF-8, joined by &, sent as
 * application/x-www-form-urlencoded; charset=UTF-8.
 */
class FormEncodingTest {
  private ScriptedServer server;

  @BeforeEach
  void start() throws Exception {
    server = new ScriptedServer();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aFormOperationSendsItsValuesPercentEncodedInUtf8WithTheFormContentType() throws Exception {
    server.answer(200, "");
    new OAuthApi(CobroClients.auth(server.url() + "/")).completeLogin("tx 1", "a&b=c", "ana+pérez@example.com", "clave ñ/100%");
    ScriptedServer.Received request = server.received.get(0);
    assertEquals("POST /integration/oauth2/complete-login", request.method() + " " + request.path());
    assertEquals("transaction=tx%201&csrf=a%26b%3Dc&email=ana%2Bp%C3%A9rez%40example.com&password=clave%20%C3%B1%2F100%25", request.body());
    assertEquals(List.of("application/x-www-form-urlencoded; charset=UTF-8"), request.headers().get("Content-type"));
  }
}
