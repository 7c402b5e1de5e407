<?php

declare(strict_types=1);

namespace Cobro\Sdk\Retry;

use Cobro\Sdk\Generated\Integration\Model\PaymentRequest;

/** What ChargeRetry::createOrGet did: `created` (this call) or `existing` (an earlier attempt's, or another's). */
final class CreateOrGetResult
{
    /** @param ChargeRetry::CREATED|ChargeRetry::EXISTING $outcome */
    public function __construct(
        public readonly string $outcome,
        public readonly PaymentRequest $paymentRequest,
    ) {
    }
}
