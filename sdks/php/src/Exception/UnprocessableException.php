<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 422: a bulk refused as a whole (its items' reasons in the body's `errors`). */
final class UnprocessableException extends CobroApiException
{
}
