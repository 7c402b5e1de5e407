package com.cobro.sdk.errors;

/**
 * Base of every exception this SDK throws on purpose. Unchecked: the generated clients declare their own
 * {@code ApiException}, and a call's typed failures ({@link CobroApiException} and {@link NoAnswerException})
 * travel through those signatures unchanged.
 */
public class CobroException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CobroException(String message) {
    super(message);
  }

  public CobroException(String message, Throwable cause) {
    super(message, cause);
  }
}
