<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 403: the token is valid but may not do this (e.g. the merchant account was unlinked). */
final class ForbiddenException extends CobroApiException
{
}
