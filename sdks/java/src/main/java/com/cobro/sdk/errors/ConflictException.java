package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 409: {@code ReferenceIdAlreadyExists} (the charge exists), {@code CustomerAlreadyAssociatedError}, …. */
public class ConflictException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public ConflictException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
