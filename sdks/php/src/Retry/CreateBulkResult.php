<?php

declare(strict_types=1);

namespace Cobro\Sdk\Retry;

use Cobro\Sdk\Generated\Integration\Model\BulkResult;

/**
 * What ChargeRetry::createBulkOrConfirm did: `created` (this call; `result` is the answer) or `created_earlier`
 * (an earlier attempt created the batch; read its charges by referenceId).
 */
final class CreateBulkResult
{
    /** @param ChargeRetry::CREATED|ChargeRetry::CREATED_EARLIER $outcome */
    public function __construct(
        public readonly string $outcome,
        public readonly ?BulkResult $result,
    ) {
    }
}
