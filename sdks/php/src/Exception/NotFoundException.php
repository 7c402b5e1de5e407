<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

/** 404: no such resource (a charge that is not found by its referenceId). */
final class NotFoundException extends CobroApiException
{
}
