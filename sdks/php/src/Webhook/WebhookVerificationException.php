<?php

declare(strict_types=1);

namespace Cobro\Sdk\Webhook;

/** A webhook that is not Cobro's as sent: answer it 400 and do not act on it. `problem()` says why. */
final class WebhookVerificationException extends \RuntimeException
{
    public const MALFORMED_HEADER = 'malformed_header';
    public const STALE_TIMESTAMP = 'stale_timestamp';
    public const SIGNATURE_MISMATCH = 'signature_mismatch';
    public const MALFORMED_BODY = 'malformed_body';

    public function __construct(private readonly string $problem, string $message)
    {
        parent::__construct($message);
    }

    /** One of the constants: malformed_header, stale_timestamp, signature_mismatch, malformed_body. */
    public function problem(): string
    {
        return $this->problem;
    }
}
