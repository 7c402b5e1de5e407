package com.cobro.sdk.webhook;

import com.cobro.sdk.errors.CobroException;

/** The webhook is refused; {@link #reason()} says why. Answer the request with a 400. */
public class WebhookVerificationException extends CobroException {
  private static final long serialVersionUID = 1L;

  /** Why a webhook was refused. */
  public enum Reason {
    /** Neither signature header, or a Standard Webhooks header without its siblings. */
    MISSING_HEADER,
    /** A header that is not the scheme's form. */
    MALFORMED_HEADER,
    /** The timestamp is outside the tolerance, either way (a replay, or a clock far off). */
    STALE_TIMESTAMP,
    /** No signature matches: forged, altered, or signed with another secret. */
    SIGNATURE_MISMATCH,
    /** The signed body is not JSON. */
    MALFORMED_BODY
  }

  private final Reason reason;

  public WebhookVerificationException(Reason reason, String detail) {
    super(reason.name().toLowerCase(java.util.Locale.ROOT) + ": " + detail);
    this.reason = reason;
  }

  public WebhookVerificationException(Reason reason, String detail, Throwable cause) {
    super(reason.name().toLowerCase(java.util.Locale.ROOT) + ": " + detail, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
