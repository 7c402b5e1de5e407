<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 409: `ReferenceIdAlreadyExists`, a charge that cannot be modified, …. */
final class ConflictException extends CobroApiException
{
}
