<?php

declare(strict_types=1);

namespace Cobro\Sdk\Retry;

use Cobro\Sdk\Exception\CobroApiException;
use Cobro\Sdk\Exception\ConflictException;
use Cobro\Sdk\Exception\NoAnswerException;
use Cobro\Sdk\Exception\NotFoundException;
use Cobro\Sdk\Exception\RateLimitException;
use Cobro\Sdk\Exception\ServerException;
use Cobro\Sdk\Exception\UnprocessableException;
use Cobro\Sdk\Generated\Integration\Api\PaymentRequestsApi;
use Cobro\Sdk\Generated\Integration\Model\BulkPaymentRequestCreate;
use Cobro\Sdk\Generated\Integration\Model\PaymentRequest;
use Cobro\Sdk\Generated\Integration\Model\PaymentRequestCreate;

/**
 * The service's retry guidance for creating charges. A create has no idempotency key: the `referenceId` is
 * the key. On no answer or a 5xx, GET the referenceId; on 404 create again with the same referenceId; a 409
 * `ReferenceIdAlreadyExists` means the charge exists. A bulk is all or nothing: on no answer GET one
 * referenceId of the batch; a 422 of a retried bulk whose every item says its referenceId already exists
 * means the earlier attempt created the batch.
 *
 * Each request's timeout is the Guzzle client's (`new Client(['timeout' => 30])` given to the
 * PaymentRequestsApi); an unanswered request counts as no answer.
 */
final class ChargeRetry
{
    public const CREATED = 'created';
    public const EXISTING = 'existing';
    public const CREATED_EARLIER = 'created_earlier';
    public const REJECTED = 'rejected';

    /** @var \Closure(int): int */
    private readonly \Closure $backoffMs;
    /** @var \Closure(int): void */
    private readonly \Closure $sleep;

    /**
     * @param int $attempts create attempts in all
     * @param (callable(int): int)|null $backoffMs the wait before the n-th retry (1-based), in milliseconds; default 500, doubling
     * @param (callable(int): void)|null $sleep waits that many milliseconds; replaceable in tests
     */
    public function __construct(
        private readonly PaymentRequestsApi $api,
        private readonly int $attempts = 3,
        ?callable $backoffMs = null,
        ?callable $sleep = null,
    ) {
        $this->backoffMs = $backoffMs !== null ? \Closure::fromCallable($backoffMs) : static fn (int $retry): int => 500 * 2 ** ($retry - 1);
        $this->sleep = $sleep !== null ? \Closure::fromCallable($sleep) : static function (int $milliseconds): void {
            usleep($milliseconds * 1000);
        };
    }

    /**
     * Creates a charge, or finds the one an earlier attempt created. Safe to call again with the same body.
     *
     * - 201: `created`.
     * - no answer or 5xx: GET the referenceId; found: `existing`; 404: create again, up to `attempts` creates.
     * - 409 `ReferenceIdAlreadyExists`: GET it: `existing` (check it is the charge you meant: the referenceId is
     *   yours to keep unique).
     * - 409 `CustomerAlreadyAssociatedError` (two simultaneous creates for one payer): retried.
     * - 429: GET the referenceId (near the cap a parallel create may have made it); otherwise thrown: wait for
     *   the reset, do not loop.
     * - Any other answer is thrown as its CobroApiException.
     *
     * @throws CobroApiException
     */
    public function createOrGet(PaymentRequestCreate $body): CreateOrGetResult
    {
        $referenceId = (string) $body->getReferenceId();
        $last = null;
        for ($attempt = 1; $attempt <= $this->attempts; $attempt++) {
            if ($attempt > 1) {
                ($this->sleep)(($this->backoffMs)($attempt - 1));
            }
            try {
                return new CreateOrGetResult(self::CREATED, CobroApiException::wrap(fn () => $this->api->createPaymentRequest($body)));
            } catch (ConflictException $error) {
                $last = $error;
                $code = $error->errorCode();
                if ($code === 'ReferenceIdAlreadyExists' || $code === 'ReferenceIdAlreadyExistsError') {
                    return new CreateOrGetResult(self::EXISTING, $this->find($referenceId) ?? throw $error);
                }
                if ($code === 'CustomerAlreadyAssociatedError') {
                    continue;
                }
                throw $error;
            } catch (RateLimitException $error) {
                return new CreateOrGetResult(self::EXISTING, $this->find($referenceId) ?? throw $error);
            } catch (NoAnswerException | ServerException $error) {
                $last = $error;
                try {
                    $existing = $this->find($referenceId);
                    if ($existing !== null) {
                        return new CreateOrGetResult(self::EXISTING, $existing);
                    }
                } catch (NoAnswerException | ServerException) {
                    // The check failed too: the next create settles it (201, or 409 if it exists).
                }
            }
        }
        throw $last;
    }

    /**
     * Creates a batch, following the guidance for a bulk that got no answer: GET one referenceId of the batch
     * (all or nothing); found: `created_earlier`; 404: send the batch again. A 422 on a retry is read with
     * interpretBulkRetry. Other answers are thrown as their CobroApiException.
     *
     * @throws CobroApiException
     */
    public function createBulkOrConfirm(BulkPaymentRequestCreate $body): CreateBulkResult
    {
        $items = $body->getPaymentRequests() ?? [];
        if ($items === []) {
            throw new \InvalidArgumentException('a bulk needs at least one payment request');
        }
        $probe = (string) $items[0]->getReferenceId();
        $last = null;
        for ($attempt = 1; $attempt <= $this->attempts; $attempt++) {
            if ($attempt > 1) {
                ($this->sleep)(($this->backoffMs)($attempt - 1));
            }
            try {
                return new CreateBulkResult(self::CREATED, CobroApiException::wrap(fn () => $this->api->createPaymentRequestsBulk($body)));
            } catch (UnprocessableException $error) {
                if ($attempt > 1 && self::interpretBulkRetry($error->body() ?? [], $body) === self::CREATED_EARLIER) {
                    return new CreateBulkResult(self::CREATED_EARLIER, null);
                }
                throw $error;
            } catch (NoAnswerException | ServerException $error) {
                $last = $error;
                try {
                    CobroApiException::wrap(fn () => $this->api->getPaymentRequest($probe));
                    return new CreateBulkResult(self::CREATED_EARLIER, null);
                } catch (NotFoundException | NoAnswerException | ServerException) {
                    // Not created (404), or unknown yet: send the batch again.
                }
            }
        }
        throw $last;
    }

    /**
     * Reads the 422 body of a retried bulk: `created_earlier` when every item of the batch failed only because
     * its referenceId already exists (the earlier attempt created the whole batch), `rejected` otherwise
     * (nothing of it was created by this call: fix the items in the body's `errors` and send it again).
     *
     * @param array<string, mixed> $errorBody the 422 body (CobroApiException::body())
     * @return self::CREATED_EARLIER|self::REJECTED
     */
    public static function interpretBulkRetry(array $errorBody, BulkPaymentRequestCreate $batch): string
    {
        $referenceIds = [];
        foreach ($batch->getPaymentRequests() ?? [] as $item) {
            $referenceIds[(string) $item->getReferenceId()] = true;
        }
        $errors = is_array($errorBody['errors'] ?? null) ? $errorBody['errors'] : [];
        if ($errors === [] || count($errors) !== count($referenceIds)) {
            return self::REJECTED;
        }
        foreach ($errors as $error) {
            $reason = is_array($error) && is_string($error['reason'] ?? null) ? $error['reason'] : '';
            $referenceId = is_array($error) && is_string($error['referenceId'] ?? null) ? $error['referenceId'] : '';
            if (preg_match('/referenceId already exists/i', $reason) !== 1 || !isset($referenceIds[$referenceId])) {
                return self::REJECTED;
            }
        }
        return self::CREATED_EARLIER;
    }

    private function find(string $referenceId): ?PaymentRequest
    {
        try {
            return CobroApiException::wrap(fn () => $this->api->getPaymentRequest($referenceId));
        } catch (NotFoundException) {
            return null;
        }
    }
}
