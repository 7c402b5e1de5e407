<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 5xx: the service failed or is unavailable; a write may or may not have happened. */
final class ServerException extends CobroApiException
{
}
