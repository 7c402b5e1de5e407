<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use Cobro\Sdk\Exception\CobroApiException;
use Cobro\Sdk\Exception\ConflictException;
use Cobro\Sdk\Exception\NoAnswerException;
use Cobro\Sdk\Exception\NotFoundException;
use Cobro\Sdk\Generated\Admin\Api\AuditLogApi;
use Cobro\Sdk\Generated\Admin\Configuration as AdminConfiguration;
use Cobro\Sdk\Generated\Integration\Api\PaymentRequestsApi;
use Cobro\Sdk\Generated\Integration\Configuration;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Psr7\Request;
use GuzzleHttp\Psr7\Response;
use PHPUnit\Framework\TestCase;

/** The generated clients as a caller uses them, without CobroApiException::wrap: what they send and what they throw. */
final class GeneratedCallTest extends TestCase
{
    private function charges(MockHttp $http): PaymentRequestsApi
    {
        return new PaymentRequestsApi($http->client, (new Configuration())->setHost('https://api.example')->setAccessToken('id-token'));
    }

    public function testACalendarDayGivenAsADateTimeIsSentAsTheContractsDate(): void
    {
        $http = new MockHttp([MockHttp::json(200, []), MockHttp::json(200, [])]);
        $this->charges($http)->listPaymentRequests(new \DateTime('2026-12-01 15:30:00'), new \DateTime('2026-12-31'));
        $this->charges($http)->listPaymentRequests('2026-11-01', '2026-11-30');
        $this->assertSame('startDate=2026-12-01&endDate=2026-12-31&limit=1000&offset=0', $http->history[0]['request']->getUri()->getQuery());
        $this->assertSame('startDate=2026-11-01&endDate=2026-11-30&limit=1000&offset=0', $http->history[1]['request']->getUri()->getQuery());
    }

    public function testAnInstantGivenAsADateTimeIsSentWhole(): void
    {
        $http = new MockHttp([MockHttp::json(200, ['items' => [], 'total' => 0, 'limit' => 50, 'offset' => 0])]);
        $audit = new AuditLogApi($http->client, (new AdminConfiguration())->setHost('https://admin.example')->setAccessToken('id-token'));
        $audit->listMyAuditLog(from: new \DateTime('2026-12-01T12:00:00+00:00'));
        parse_str($http->history[0]['request']->getUri()->getQuery(), $query);
        $this->assertSame('2026-12-01T12:00:00+00:00', $query['from']);
    }

    public function testANonSuccessAnswerIsThrownAsTheTypedExceptionOfItsStatus(): void
    {
        $http = new MockHttp([MockHttp::json(404, ['code' => 'PaymentRequestNotFoundError', 'message' => 'Payment request not found', 'id' => 'err-1'])]);
        try {
            $this->charges($http)->getPaymentRequest('INV-1');
            $this->fail('no exception');
        } catch (NotFoundException $error) {
            $this->assertSame('PaymentRequestNotFoundError', $error->errorCode());
            $this->assertSame('err-1', $error->errorId());
        }
    }

    public function testNoAnswerIsThrownAsNoAnswerException(): void
    {
        $http = new MockHttp([new ConnectException('Connection refused', new Request('GET', 'https://api.example/payment-request/INV-1'))]);
        $this->expectException(NoAnswerException::class);
        $this->charges($http)->getPaymentRequest('INV-1');
    }

    public function testWrapStillWorksAroundACallThatThrowsTheTypedException(): void
    {
        $http = new MockHttp([MockHttp::json(404, ['message' => 'Payment request not found'])]);
        $this->expectException(NotFoundException::class);
        CobroApiException::wrap(fn () => $this->charges($http)->getPaymentRequest('INV-1'));
    }

    public function testAConflictWithoutAnIdQuotesTheRequestIdHeader(): void
    {
        $http = new MockHttp([new Response(409, ['Content-Type' => 'application/json', 'X-Request-Id' => 'req-7f3a'], json_encode([
            'error' => 'ReferenceIdAlreadyExists',
            'message' => 'A payment request with this referenceId already exists',
            'referenceId' => 'INV-1',
        ]))]);
        try {
            CobroApiException::wrap(fn () => $this->charges($http)->getPaymentRequest('INV-1'));
            $this->fail('no exception');
        } catch (ConflictException $error) {
            $this->assertSame('req-7f3a', $error->errorId());
        }
        $this->assertSame('body-id', CobroApiException::fromResponse(409, json_encode(['id' => 'body-id']), ['X-Request-Id' => ['req-1']])->errorId());
    }
}
