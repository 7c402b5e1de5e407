package com.cobro.sdk.errors;

import java.util.List;
import java.util.Map;

/** 5xx: after a create or a bulk, check with a GET before retrying (see {@link com.cobro.sdk.retry.ChargeRetry}). */
public class ServerException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public ServerException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }
}
