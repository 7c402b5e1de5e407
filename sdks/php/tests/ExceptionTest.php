<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use Cobro\Sdk\Exception\CobroApiException;
use Cobro\Sdk\Exception\ConflictException;
use Cobro\Sdk\Exception\NoAnswerException;
use Cobro\Sdk\Exception\NotFoundException;
use Cobro\Sdk\Exception\RateLimitException;
use Cobro\Sdk\Exception\ServerException;
use Cobro\Sdk\Exception\ValidationException;
use Cobro\Sdk\Generated\Integration\Api\PaymentRequestsApi;
use Cobro\Sdk\Generated\Integration\Configuration;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Psr7\Request;
use GuzzleHttp\Psr7\Response;
use PHPUnit\Framework\TestCase;

final class ExceptionTest extends TestCase
{
    private function charges(MockHttp $http): PaymentRequestsApi
    {
        return new PaymentRequestsApi($http->client, (new Configuration())->setHost('https://api.example')->setAccessToken('id-token'));
    }

    public function testAValidationErrorCarriesCodeMessageIdAndEachDetail(): void
    {
        $http = new MockHttp([MockHttp::json(400, [
            'code' => 'ValidationError',
            'message' => 'The request is invalid',
            'id' => 'req-42',
            'validationDetails' => [
                ['field' => 'customer.email', 'message' => 'must be an email', 'rule' => 'format', 'format' => 'email'],
                ['field' => 'description', 'message' => 'is too long', 'rule' => 'maxLength', 'limit' => 140, 'extra' => 'dropped'],
                ['message' => 'no field: left out'],
            ],
        ])]);
        try {
            CobroApiException::wrap(fn () => $this->charges($http)->getPaymentRequest('INV-1'));
            $this->fail('no exception');
        } catch (ValidationException $error) {
            $this->assertSame(400, $error->status());
            $this->assertSame('ValidationError', $error->errorCode());
            $this->assertSame('The request is invalid', $error->errorMessage());
            $this->assertSame('req-42', $error->errorId());
            $this->assertSame([
                ['field' => 'customer.email', 'message' => 'must be an email', 'rule' => 'format', 'format' => 'email'],
                ['field' => 'description', 'message' => 'is too long', 'rule' => 'maxLength', 'limit' => 140],
            ], $error->validationDetails());
            $this->assertSame('Cobro answered 400 ValidationError: The request is invalid', $error->getMessage());
        }
        $this->assertSame(['GET /payment-request/INV-1'], $http->calls());
        $this->assertSame('Bearer id-token', $http->history[0]['request']->getHeaderLine('Authorization'));
    }

    public function testEachStatusHasItsOwnTypeAndTheErrorFieldCountsAsTheCode(): void
    {
        $cases = [
            [404, ['message' => 'Payment request not found'], NotFoundException::class, null],
            [409, ['error' => 'ReferenceIdAlreadyExists', 'message' => 'exists', 'referenceId' => 'INV-1'], ConflictException::class, 'ReferenceIdAlreadyExists'],
            [429, ['code' => 'IntegrationDailyRequestLimitExceededError', 'message' => 'limit'], RateLimitException::class, 'IntegrationDailyRequestLimitExceededError'],
            [503, ['code' => 'IntegrationDailyLimitUnavailableError', 'message' => 'unavailable'], ServerException::class, 'IntegrationDailyLimitUnavailableError'],
        ];
        foreach ($cases as [$status, $body, $class, $code]) {
            $error = CobroApiException::fromResponse($status, json_encode($body), ['Retry-After' => ['60']]);
            $this->assertInstanceOf($class, $error);
            $this->assertSame($code, $error->errorCode());
            $this->assertSame($body, $error->body());
            $this->assertSame('60', $error->header('retry-after'));
        }
    }

    public function testABodyThatIsNotJsonLeavesTheFieldsEmpty(): void
    {
        $error = CobroApiException::fromResponse(502, '<html>Bad gateway</html>');
        $this->assertInstanceOf(ServerException::class, $error);
        $this->assertNull($error->body());
        $this->assertNull($error->errorCode());
        $this->assertSame([], $error->validationDetails());
    }

    public function testNoAnswerIsItsOwnTypeWithStatusZero(): void
    {
        $http = new MockHttp([new ConnectException('cURL error 28: Operation timed out', new Request('GET', 'https://api.example/v1/payment-requests/INV-1'))]);
        try {
            CobroApiException::wrap(fn () => $this->charges($http)->getPaymentRequest('INV-1'));
            $this->fail('no exception');
        } catch (NoAnswerException $error) {
            $this->assertSame(0, $error->status());
            $this->assertStringContainsString('Operation timed out', $error->getMessage());
        }
    }

    public function testASuccessPassesThroughWrap(): void
    {
        $http = new MockHttp([new Response(200, ['Content-Type' => 'application/json'], '{"referenceId":"INV-1","state":"pending"}')]);
        $charge = CobroApiException::wrap(fn () => $this->charges($http)->getPaymentRequest('INV-1'));
        $this->assertSame('pending', $charge->getState());
    }
}
