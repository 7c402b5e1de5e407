<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use Cobro\Sdk\Webhook\WebhookVerificationException;
use Cobro\Sdk\Webhook\WebhookVerifier;
use GuzzleHttp\Psr7\ServerRequest;
use PHPUnit\Framework\TestCase;

final class WebhookVerifierTest extends TestCase
{
    // A `standard` secret: whsec_ and the base64 of 32 bytes, as the Admin API returns it.
    private const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2tNAs0bSyEk=';
    private const OTHER_SECRET = 'whsec_c2VjcmV0LW9mLWFub3RoZXItaW50ZWdyYXRpb24tMTIzNDU2Nzg=';
    private const NOW = 1_790_000_000;
    private const BODY = '{"event":"payment_request.payment_received","referenceId":"INV-1","stateType":"total_payment","paidAmount":1500.5}';

    private function verifier(string $secret = self::SECRET, int $now = self::NOW): WebhookVerifier
    {
        return new WebhookVerifier($secret, 300, static fn (): int => $now);
    }

    /** @param array<string, string> $headers */
    private function request(string $body, array $headers): ServerRequest
    {
        return new ServerRequest('POST', 'https://integrator.example/webhooks/cobro', $headers + ['Content-Type' => 'application/json'], $body);
    }

    private function problemOf(callable $verify): ?string
    {
        try {
            $verify();
            return null;
        } catch (WebhookVerificationException $error) {
            return $error->problem();
        }
    }

    public function testAServiceSignatureOfTheBodyIsAcceptedAndTheEventReturned(): void
    {
        $header = $this->verifier()->signServicePayload(self::BODY, self::NOW - 10);
        $this->assertMatchesRegularExpression('/^t=\d+,v1=[0-9a-f]{64}$/', $header);
        $event = $this->verifier()->verify($this->request(self::BODY, [WebhookVerifier::SIGNATURE_HEADER => $header]));
        $this->assertSame('payment_request.payment_received', $event['event']);
        $this->assertSame('INV-1', $event['referenceId']);
    }

    public function testTheServiceSignatureIsTheHexHmacOfTimestampDotBodyKeyedWithTheSecretString(): void
    {
        $expected = hash_hmac('sha256', self::NOW . '.' . self::BODY, self::SECRET);
        $this->assertSame('t=' . self::NOW . ",v1={$expected}", $this->verifier()->signServicePayload(self::BODY, self::NOW));
    }

    public function testAServiceSignatureMadeWithAnotherSecretIsRefused(): void
    {
        $forged = $this->verifier(self::OTHER_SECRET)->signServicePayload(self::BODY, self::NOW);
        $this->assertSame(WebhookVerificationException::SIGNATURE_MISMATCH, $this->problemOf(fn () => $this->verifier()->verify(
            $this->request(self::BODY, [WebhookVerifier::SIGNATURE_HEADER => $forged]),
        )));
    }

    public function testAnAlteredBodyFailsTheServiceSignature(): void
    {
        $header = $this->verifier()->signServicePayload(self::BODY, self::NOW);
        $altered = str_replace('1500.5', '15000.5', self::BODY);
        $this->assertSame(WebhookVerificationException::SIGNATURE_MISMATCH, $this->problemOf(fn () => $this->verifier()->verify(
            $this->request($altered, [WebhookVerifier::SIGNATURE_HEADER => $header]),
        )));
    }

    public function testAServiceSignatureOutsideTheToleranceIsStaleEitherWay(): void
    {
        foreach ([self::NOW - 301, self::NOW + 301] as $timestamp) {
            $header = $this->verifier()->signServicePayload(self::BODY, $timestamp);
            $this->assertSame(WebhookVerificationException::STALE_TIMESTAMP, $this->problemOf(
                fn () => $this->verifier()->verifyServiceSignature(self::BODY, $header),
            ));
        }
        $edge = $this->verifier()->signServicePayload(self::BODY, self::NOW - 300);
        $this->assertNull($this->problemOf(fn () => $this->verifier()->verifyServiceSignature(self::BODY, $edge)));
    }

    public function testOneMatchingV1AmongSeveralIsEnoughWhileASecretRotates(): void
    {
        $old = $this->verifier(self::OTHER_SECRET)->signServicePayload(self::BODY, self::NOW);
        $current = $this->verifier()->signServicePayload(self::BODY, self::NOW);
        $header = $old . ',' . substr($current, strpos($current, 'v1=')) . ',v0=ignored';
        $this->assertNull($this->problemOf(fn () => $this->verifier()->verifyServiceSignature(self::BODY, $header)));
    }

    public function testMalformedServiceSignaturesAreRefusedAsSuch(): void
    {
        foreach (['', 'v1=' . str_repeat('a', 64), 't=' . self::NOW, 't=abc,v1=' . str_repeat('a', 64), 'garbage', 't=1,t=2,v1=' . str_repeat('a', 64)] as $header) {
            $this->assertSame(WebhookVerificationException::MALFORMED_HEADER, $this->problemOf(
                fn () => $this->verifier()->verifyServiceSignature(self::BODY, $header),
            ), $header);
        }
        $this->assertSame(WebhookVerificationException::MALFORMED_HEADER, $this->problemOf(
            fn () => $this->verifier()->verifyServiceSignature(self::BODY, null),
        ));
    }

    public function testAStandardWebhooksSignatureIsAcceptedAndKeyedWithTheDecodedSecret(): void
    {
        $headers = $this->verifier()->signStandardWebhook('msg_2f9a', self::BODY, self::NOW);
        $key = base64_decode(substr(self::SECRET, strlen('whsec_')), true);
        $expected = base64_encode(hash_hmac('sha256', 'msg_2f9a.' . self::NOW . '.' . self::BODY, (string) $key, true));
        $this->assertSame("v1,{$expected}", $headers['webhook-signature']);
        $event = $this->verifier()->verify($this->request(self::BODY, $headers));
        $this->assertSame('INV-1', $event['referenceId']);
    }

    public function testAStandardWebhooksSignatureMadeWithAnotherSecretIsRefused(): void
    {
        $forged = $this->verifier(self::OTHER_SECRET)->signStandardWebhook('msg_2f9a', self::BODY, self::NOW);
        $this->assertSame(WebhookVerificationException::SIGNATURE_MISMATCH, $this->problemOf(
            fn () => $this->verifier()->verify($this->request(self::BODY, $forged)),
        ));
    }

    public function testAnAlteredBodyOrIdFailsTheStandardWebhooksSignature(): void
    {
        $headers = $this->verifier()->signStandardWebhook('msg_2f9a', self::BODY, self::NOW);
        $altered = str_replace('INV-1', 'INV-2', self::BODY);
        $this->assertSame(WebhookVerificationException::SIGNATURE_MISMATCH, $this->problemOf(
            fn () => $this->verifier()->verify($this->request($altered, $headers)),
        ));
        $this->assertSame(WebhookVerificationException::SIGNATURE_MISMATCH, $this->problemOf(
            fn () => $this->verifier()->verifyStandardWebhook(self::BODY, ['webhook-id' => 'msg_other'] + $headers),
        ));
    }

    public function testAStandardWebhooksTimestampOutsideTheToleranceIsStale(): void
    {
        $headers = $this->verifier()->signStandardWebhook('msg_2f9a', self::BODY, self::NOW - 301);
        $this->assertSame(WebhookVerificationException::STALE_TIMESTAMP, $this->problemOf(
            fn () => $this->verifier()->verify($this->request(self::BODY, $headers)),
        ));
    }

    public function testStandardWebhooksHeadersAreMatchedCaseInsensitivelyAndAnyV1Entry(): void
    {
        $headers = $this->verifier()->signStandardWebhook('msg_2f9a', self::BODY, self::NOW);
        $other = $this->verifier(self::OTHER_SECRET)->signStandardWebhook('msg_2f9a', self::BODY, self::NOW);
        $mixed = [
            'Webhook-Id' => 'msg_2f9a',
            'WEBHOOK-TIMESTAMP' => (string) self::NOW,
            'Webhook-Signature' => "v2,unknown {$other['webhook-signature']} {$headers['webhook-signature']}",
        ];
        $this->assertNull($this->problemOf(fn () => $this->verifier()->verifyStandardWebhook(self::BODY, $mixed)));
    }

    public function testARequestWithoutSignaturesIsMalformed(): void
    {
        $this->assertSame(WebhookVerificationException::MALFORMED_HEADER, $this->problemOf(
            fn () => $this->verifier()->verify($this->request(self::BODY, [])),
        ));
    }

    public function testAnEmptySecretIsAProgrammingError(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new WebhookVerifier('');
    }
}
