<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/**
 * The request got no answer (a connection error or a timeout): it may or may not have reached the service.
 * Retry a create only as `Retry\ChargeRetry` does, after reading the charge by its referenceId.
 */
final class NoAnswerException extends CobroApiException
{
    public function __construct(string $reason, ?\Throwable $previous = null)
    {
        parent::__construct(0, ['message' => "Cobro did not answer: {$reason}"], [], $previous);
    }
}
