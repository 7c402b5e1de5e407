package com.cobro.sdk.errors;

import java.io.IOException;

/**
 * No answer came back (connection refused or reset, timeout): the request may or may not have reached the
 * service. After a create, check with a GET by {@code referenceId} before creating again
 * ({@link com.cobro.sdk.retry.ChargeRetry} does).
 */
public class NoAnswerException extends CobroException {
  private static final long serialVersionUID = 1L;

  public NoAnswerException(IOException cause) {
    super("no answer from the service: " + cause, cause);
  }

  public NoAnswerException(String message) {
    super(message);
  }
}
