package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 403. */
public class ForbiddenException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public ForbiddenException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
