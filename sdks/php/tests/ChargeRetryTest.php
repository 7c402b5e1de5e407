<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use Cobro\Sdk\Exception\ConflictException;
use Cobro\Sdk\Exception\RateLimitException;
use Cobro\Sdk\Exception\UnprocessableException;
use Cobro\Sdk\Exception\ValidationException;
use Cobro\Sdk\Generated\Integration\Api\PaymentRequestsApi;
use Cobro\Sdk\Generated\Integration\Configuration;
use Cobro\Sdk\Generated\Integration\Model\BulkPaymentRequestCreate;
use Cobro\Sdk\Generated\Integration\Model\BulkPaymentRequestItem;
use Cobro\Sdk\Generated\Integration\Model\CustomerInput;
use Cobro\Sdk\Generated\Integration\Model\PaymentRequestCreate;
use Cobro\Sdk\Retry\ChargeRetry;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Psr7\Request;
use PHPUnit\Framework\TestCase;

final class ChargeRetryTest extends TestCase
{
    /** @var list<int> */
    private array $slept = [];

    private function retry(MockHttp $http): ChargeRetry
    {
        $api = new PaymentRequestsApi($http->client, (new Configuration())->setHost('https://api.example')->setAccessToken('t'));
        return new ChargeRetry($api, 3, null, function (int $milliseconds): void {
            $this->slept[] = $milliseconds;
        });
    }

    private static function body(string $referenceId = 'INV-7'): PaymentRequestCreate
    {
        return new PaymentRequestCreate([
            'referenceId' => $referenceId,
            'description' => 'Cuota',
            'dueDates' => ['2026-12-10'],
            'amount' => 1500.5,
            'customer' => new CustomerInput(['name' => 'Juan Pérez']),
            'sendWhatsappNotification' => false,
            'sendEmailNotification' => false,
        ]);
    }

    /** @return array<string, mixed> */
    private static function charge(string $referenceId = 'INV-7'): array
    {
        return ['referenceId' => $referenceId, 'state' => 'pending', 'amount' => 1500.5];
    }

    private static function timeout(): ConnectException
    {
        return new ConnectException('cURL error 28: Operation timed out', new Request('POST', 'https://api.example/payment-request'));
    }

    public function testA201IsCreatedWithOneRequest(): void
    {
        $http = new MockHttp([MockHttp::json(201, self::charge())]);
        $result = $this->retry($http)->createOrGet(self::body());
        $this->assertSame(ChargeRetry::CREATED, $result->outcome);
        $this->assertSame('INV-7', $result->paymentRequest->getReferenceId());
        $this->assertSame(['POST /payment-request'], $http->calls());
        $this->assertSame('INV-7', $http->jsonSent(0)['referenceId']);
    }

    public function testNoAnswerThenFoundByReferenceIdIsExistingWithoutASecondCreate(): void
    {
        $http = new MockHttp([self::timeout(), MockHttp::json(200, self::charge())]);
        $result = $this->retry($http)->createOrGet(self::body());
        $this->assertSame(ChargeRetry::EXISTING, $result->outcome);
        $this->assertSame(['POST /payment-request', 'GET /payment-request/INV-7'], $http->calls());
    }

    public function testA5xxThenNotFoundCreatesAgainWithTheSameReferenceIdAfterTheBackoff(): void
    {
        $http = new MockHttp([
            MockHttp::json(500, ['code' => 'InternalError', 'message' => 'boom']),
            MockHttp::json(404, ['message' => 'Payment request not found']),
            MockHttp::json(201, self::charge()),
        ]);
        $result = $this->retry($http)->createOrGet(self::body());
        $this->assertSame(ChargeRetry::CREATED, $result->outcome);
        $this->assertSame(['POST /payment-request', 'GET /payment-request/INV-7', 'POST /payment-request'], $http->calls());
        $this->assertSame($http->jsonSent(0), $http->jsonSent(2));
        $this->assertSame([500], $this->slept);
    }

    public function testA409ReferenceIdAlreadyExistsReadsTheExistingCharge(): void
    {
        $http = new MockHttp([
            MockHttp::json(409, ['error' => 'ReferenceIdAlreadyExists', 'message' => 'exists', 'referenceId' => 'INV-7']),
            MockHttp::json(200, self::charge()),
        ]);
        $result = $this->retry($http)->createOrGet(self::body());
        $this->assertSame(ChargeRetry::EXISTING, $result->outcome);
        $this->assertSame('INV-7', $result->paymentRequest->getReferenceId());
    }

    public function testTwoSimultaneousCreatesForOnePayerAreRetriedThenThrown(): void
    {
        $busy = MockHttp::json(409, ['code' => 'CustomerAlreadyAssociatedError', 'message' => 'busy', 'id' => 'req-1']);
        $http = new MockHttp([$busy, $busy, $busy]);
        try {
            $this->retry($http)->createOrGet(self::body());
            $this->fail('no exception');
        } catch (ConflictException $error) {
            $this->assertSame('CustomerAlreadyAssociatedError', $error->errorCode());
        }
        $this->assertSame(['POST /payment-request', 'POST /payment-request', 'POST /payment-request'], $http->calls());
        $this->assertSame([500, 1000], $this->slept);
    }

    public function testA400IsThrownAtOnce(): void
    {
        $http = new MockHttp([MockHttp::json(400, ['code' => 'ValidationError', 'message' => 'bad', 'validationDetails' => []])]);
        $this->expectException(ValidationException::class);
        try {
            $this->retry($http)->createOrGet(self::body());
        } finally {
            $this->assertSame(['POST /payment-request'], $http->calls());
        }
    }

    public function testA429IsCheckedWithAGetAndThrownWhenTheChargeDoesNotExist(): void
    {
        $http = new MockHttp([
            MockHttp::json(429, ['code' => 'IntegrationGlobalDailyMessageLimitExceededError', 'message' => 'cap']),
            MockHttp::json(404, ['message' => 'Payment request not found']),
        ]);
        $this->expectException(RateLimitException::class);
        try {
            $this->retry($http)->createOrGet(self::body());
        } finally {
            $this->assertSame(['POST /payment-request', 'GET /payment-request/INV-7'], $http->calls());
            $this->assertSame([], $this->slept);
        }
    }

    public function testNoAnswerEveryTimeGivesUpAfterTheAttemptsWithTheLastError(): void
    {
        $http = new MockHttp([self::timeout(), self::timeout(), self::timeout(), self::timeout(), self::timeout(), self::timeout()]);
        try {
            $this->retry($http)->createOrGet(self::body());
            $this->fail('no exception');
        } catch (\Cobro\Sdk\Exception\NoAnswerException) {
            $this->assertCount(6, $http->calls());
            $this->assertSame([500, 1000], $this->slept);
        }
    }

    private static function batch(): BulkPaymentRequestCreate
    {
        $item = static fn (string $referenceId): BulkPaymentRequestItem => new BulkPaymentRequestItem([
            'referenceId' => $referenceId,
            'description' => 'Cuota',
            'dueDates' => ['2026-12-10'],
            'amount' => 100.0,
            'customer' => new CustomerInput(['name' => 'Ana']),
            'sendWhatsappNotification' => false,
            'sendEmailNotification' => false,
        ]);
        return new BulkPaymentRequestCreate(['paymentRequests' => [$item('B-1'), $item('B-2')]]);
    }

    public function testABulkWithoutAnswerWhoseFirstChargeExistsWasCreatedEarlier(): void
    {
        $http = new MockHttp([self::timeout(), MockHttp::json(200, self::charge('B-1'))]);
        $result = $this->retry($http)->createBulkOrConfirm(self::batch());
        $this->assertSame(ChargeRetry::CREATED_EARLIER, $result->outcome);
        $this->assertNull($result->result);
        $this->assertSame(['POST /payment-request/bulk', 'GET /payment-request/B-1'], $http->calls());
    }

    public function testARetriedBulkRefusedBecauseEveryReferenceIdExistsWasCreatedEarlier(): void
    {
        $exists = 'The referenceId already exists for this integration';
        $http = new MockHttp([
            self::timeout(),
            self::timeout(),
            MockHttp::json(422, ['message' => 'invalid', 'errors' => [['referenceId' => 'B-1', 'reason' => $exists], ['referenceId' => 'B-2', 'reason' => $exists]]]),
        ]);
        $this->assertSame(ChargeRetry::CREATED_EARLIER, $this->retry($http)->createBulkOrConfirm(self::batch())->outcome);
        $this->assertSame(['POST /payment-request/bulk', 'GET /payment-request/B-1', 'POST /payment-request/bulk'], $http->calls());
    }

    public function testAFirstBulkRefusedFor422IsThrownAndOtherReasonsAreRejected(): void
    {
        $http = new MockHttp([MockHttp::json(422, ['message' => 'invalid', 'errors' => [['referenceId' => 'B-2', 'reason' => 'amount must be positive']]])]);
        try {
            $this->retry($http)->createBulkOrConfirm(self::batch());
            $this->fail('no exception');
        } catch (UnprocessableException $error) {
            $this->assertSame(ChargeRetry::REJECTED, ChargeRetry::interpretBulkRetry($error->body() ?? [], self::batch()));
        }
        $oneOfTwo = ['errors' => [['referenceId' => 'B-1', 'reason' => 'The referenceId already exists for this integration']]];
        $this->assertSame(ChargeRetry::REJECTED, ChargeRetry::interpretBulkRetry($oneOfTwo, self::batch()));
    }

    public function testABulkCreatedAtOnceReturnsTheResult(): void
    {
        $http = new MockHttp([MockHttp::json(201, ['batchId' => 'batch-1', 'total' => 2, 'created' => 2, 'paymentRequests' => []])]);
        $result = $this->retry($http)->createBulkOrConfirm(self::batch());
        $this->assertSame(ChargeRetry::CREATED, $result->outcome);
        $this->assertSame('batch-1', $result->result?->getBatchId());
    }
}
