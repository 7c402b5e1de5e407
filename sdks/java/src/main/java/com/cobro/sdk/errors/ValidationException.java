package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 400 {@code ValidationError}: {@link #validationDetails()} lists the fields. */
public class ValidationException extends BadRequestException {
  private static final long serialVersionUID = 1L;

  public ValidationException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
