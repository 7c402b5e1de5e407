<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 429: a daily limit; `header('Retry-After')` when the answer has it. Wait; do not loop. */
final class RateLimitException extends CobroApiException
{
}
