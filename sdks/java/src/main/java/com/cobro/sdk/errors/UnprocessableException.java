package com.cobro.sdk.errors;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** 422: a bulk refused for its items ({@link #errors()}: {@code index}, {@code referenceId}, {@code reason}). */
public class UnprocessableException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public UnprocessableException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }

  /** The body's {@code errors}, one per failing item of the batch; empty when the body has none. */
  public List<JsonNode> errors() {
    List<JsonNode> items = new ArrayList<>();
    JsonNode errors = json() == null ? null : json().get("errors");
    if (errors != null && errors.isArray()) errors.forEach(item -> {
      if (item.isObject()) items.add(item);
    });
    return items;
  }
}
