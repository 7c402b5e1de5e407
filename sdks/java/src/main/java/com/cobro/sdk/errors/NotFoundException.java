package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 404. */
public class NotFoundException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public NotFoundException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
