package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 401: the token is missing, invalid or expired. */
public class AuthenticationException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
