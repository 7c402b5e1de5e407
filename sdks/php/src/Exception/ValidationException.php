<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 400: a `ValidationError` (its fields in `validationDetails()`) or another invalid request. */
final class ValidationException extends CobroApiException
{
}
