package com.cobro.sdk.errors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A non-2xx answer of the service. The subclass says the status ({@link NotFoundException} 404,
 * {@link ConflictException} 409, …); the accessors read the error body, whichever of the contract's shapes it
 * has ({@code {code, message, id}}, the same with {@code validationDetails}, {@code {error, message,
 * referenceId}}, {@code {message, errors}}, {@code {message}}, or plain text). Decide by the type, then by
 * {@link #code()} ({@link #hasCode(String)}), never by the message; quote {@link #id()} to support.
 *
 * <p>Every call of the generated clients throws these (their {@code ApiException} is the cause).
 */
public class CobroApiException extends CobroException {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int status;
  private final String text;
  private final transient JsonNode json;
  private final Map<String, List<String>> headers;

  public CobroApiException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    this(status, body == null ? "" : body, parse(body), headers, cause);
  }

  /** The body parsed once, for the message and the accessors. */
  private CobroApiException(int status, String text, JsonNode json, Map<String, List<String>> headers, Throwable cause) {
    super(summary(status, text, json), cause);
    this.status = status;
    this.text = text;
    this.json = json;
    TreeMap<String, List<String>> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    if (headers != null) byName.putAll(headers);
    this.headers = Collections.unmodifiableMap(byName);
  }

  /** The typed exception of a non-2xx answer: the class of its status (and of its code, for a 400). */
  public static CobroApiException of(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    if (status >= 500) return new ServerException(status, body, headers, cause);
    switch (status) {
      case 400:
        return sameCode(codeOf(parse(body)), "ValidationError")
            ? new ValidationException(status, body, headers, cause)
            : new BadRequestException(status, body, headers, cause);
      case 401:
        return new AuthenticationException(status, body, headers, cause);
      case 403:
        return new ForbiddenException(status, body, headers, cause);
      case 404:
        return new NotFoundException(status, body, headers, cause);
      case 409:
        return new ConflictException(status, body, headers, cause);
      case 422:
        return new UnprocessableException(status, body, headers, cause);
      case 429:
        return new RateLimitException(status, body, headers, cause);
      default:
        return new CobroApiException(status, body, headers, cause);
    }
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /**
   * The body's {@code code}, or else its {@code error} ({@code ReferenceIdAlreadyExists}), as the body has it:
   * the service writes some codes bare and some with an {@code Error} suffix ({@link #hasCode(String)} takes
   * both); null when the body has neither.
   */
  public String code() {
    return codeOf(json);
  }

  /** Whether the body's code is {@code code}, with or without the {@code Error} suffix. */
  public boolean hasCode(String code) {
    return sameCode(code(), code);
  }

  /** The body's {@code message} (English, for a developer's log), or the plain-text body; null when none. */
  public String errorMessage() {
    String message = textField("message");
    if (message != null) return message;
    return json == null && !text.isBlank() ? text.strip() : null;
  }

  /** The error's {@code id}, or else the answer's {@code X-Request-Id}: quote it to Cobro's support. */
  public String id() {
    String id = textField("id");
    return id != null ? id : header("x-request-id").orElse(null);
  }

  /** The fields of a 400 {@code ValidationError}; empty for any other answer. */
  public List<ValidationDetail> validationDetails() {
    List<ValidationDetail> details = new ArrayList<>();
    JsonNode items = json == null ? null : json.get("validationDetails");
    if (items == null || !items.isArray()) return details;
    for (JsonNode item : items) {
      JsonNode field = item.get("field");
      JsonNode message = item.get("message");
      if (field == null || !field.isTextual() || message == null || !message.isTextual()) continue;
      List<String> fields = new ArrayList<>();
      JsonNode names = item.get("fields");
      if (names != null && names.isArray()) names.forEach(name -> fields.add(name.asText()));
      JsonNode limit = item.get("limit");
      details.add(new ValidationDetail(
          field.asText(),
          message.asText(),
          textOf(item, "rule"),
          limit != null && limit.isNumber() ? limit.asDouble() : null,
          textOf(item, "format"),
          List.copyOf(fields)));
    }
    return details;
  }

  /** The body as received (empty when there was none). */
  public String body() {
    return text;
  }

  /** The body parsed as JSON, or null when it is empty or not JSON. */
  public JsonNode json() {
    return json;
  }

  /** The answer's headers, by case-insensitive name. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** One header's first value. */
  public Optional<String> header(String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? Optional.empty() : Optional.ofNullable(values.get(0));
  }

  private String textField(String name) {
    return json == null || !json.isObject() ? null : textOf(json, name);
  }

  private static String textOf(JsonNode node, String name) {
    JsonNode value = node.get(name);
    return value != null && value.isTextual() ? value.asText() : null;
  }

  /** A parsed body's {@code code}, or else its {@code error}; null when it has neither or is not an object. */
  private static String codeOf(JsonNode json) {
    if (json == null || !json.isObject()) return null;
    String code = textOf(json, "code");
    return code != null ? code : textOf(json, "error");
  }

  private static boolean sameCode(String own, String code) {
    return own != null && code != null && bare(own).equals(bare(code));
  }

  private static String bare(String code) {
    return code.endsWith("Error") ? code.substring(0, code.length() - "Error".length()) : code;
  }

  private static JsonNode parse(String text) {
    if (text == null || text.isBlank()) return null;
    try {
      return JSON.readTree(text);
    } catch (IOException notJson) {
      return null;
    }
  }

  private static String summary(int status, String text, JsonNode json) {
    if (json == null || !json.isObject()) return status + (text.isBlank() ? "" : " " + text.strip());
    String code = codeOf(json);
    String message = textOf(json, "message");
    return (status + " " + (code == null ? "" : code) + " " + (message == null ? "" : message)).strip();
  }
}
