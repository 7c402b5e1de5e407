<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 401: a missing, expired or revoked token, or wrong client credentials. */
final class AuthenticationException extends CobroApiException
{
}
