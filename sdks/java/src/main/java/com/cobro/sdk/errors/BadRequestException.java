package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 400: a request the service refuses (see {@link #code()}). */
public class BadRequestException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public BadRequestException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
