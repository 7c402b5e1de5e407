<?php

declare(strict_types=1);

namespace Cobro\Sdk\Webhook;

use Psr\Http\Message\ServerRequestInterface;

/**
 * Verifies the webhooks Cobro sends. Each one is signed twice, over the exact bytes of the body:
 *
 * - `X-Service-Signature: t=<unix seconds>,v1=<hex>`: the lowercase hex HMAC-SHA256 of "{t}.{rawBody}", keyed
 *   with the signing secret string exactly as the Admin API returns it (`whsec_…`). Several `v1` entries
 *   may come while a secret is rotated; one matching is enough.
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64>`, the HMAC-SHA256 of "{id}.{timestamp}.{rawBody}" keyed with the bytes
 *   of the base64 after `whsec_`. A secret whose scheme is `legacy` does not key it so: verify those with
 *   `X-Service-Signature` (or rotate the secret).
 *
 * Both refuse a timestamp more than the tolerance (default 300 seconds) from the clock, and compare in
 * constant time.
 *
 *     $verifier = new WebhookVerifier(getenv('COBRO_WEBHOOK_SECRET'));
 *     $event = $verifier->verify($request); // a PSR-7 ServerRequestInterface; throws WebhookVerificationException
 */
final class WebhookVerifier
{
    public const SIGNATURE_HEADER = 'X-Service-Signature';
    /** Identical across the retries of one delivery: deduplicate by it (the same value as `webhook-id`). */
    public const WEBHOOK_ID_HEADER = 'X-Service-Webhook-Id';
    public const STANDARD_ID_HEADER = 'webhook-id';
    public const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
    public const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

    private const SECRET_PREFIX = 'whsec_';

    /** @var \Closure(): int */
    private readonly \Closure $clock;

    /**
     * @param string $secret the integration's webhook signing secret (`whsec_…`)
     * @param int $toleranceSeconds how far a signature's timestamp may be from the clock, either way
     * @param (callable(): int)|null $clock the current Unix time in seconds; default time()
     */
    public function __construct(
        private readonly string $secret,
        private readonly int $toleranceSeconds = 300,
        ?callable $clock = null,
    ) {
        if ($secret === '') {
            throw new \InvalidArgumentException('the webhook signing secret is empty');
        }
        $this->clock = $clock !== null ? \Closure::fromCallable($clock) : static fn (): int => time();
    }

    /**
     * Verifies a webhook request and returns its JSON body decoded (arrays). Uses `X-Service-Signature` when
     * the request has it, the Standard Webhooks headers otherwise.
     *
     * @return array<string, mixed>
     * @throws WebhookVerificationException
     */
    public function verify(ServerRequestInterface $request): array
    {
        $body = $request->getBody();
        if ($body->isSeekable()) {
            $body->rewind();
        }
        $rawBody = $body->getContents();
        if ($request->hasHeader(self::SIGNATURE_HEADER)) {
            $this->verifyServiceSignature($rawBody, $request->getHeaderLine(self::SIGNATURE_HEADER));
        } else {
            $this->verifyStandardWebhook($rawBody, [
                self::STANDARD_ID_HEADER => $request->getHeader(self::STANDARD_ID_HEADER),
                self::STANDARD_TIMESTAMP_HEADER => $request->getHeader(self::STANDARD_TIMESTAMP_HEADER),
                self::STANDARD_SIGNATURE_HEADER => $request->getHeader(self::STANDARD_SIGNATURE_HEADER),
            ]);
        }
        $event = json_decode($rawBody, true);
        if (!is_array($event)) {
            throw new WebhookVerificationException(WebhookVerificationException::MALFORMED_BODY, 'the signed body is not a JSON object');
        }
        return $event;
    }

    /**
     * Verifies an `X-Service-Signature` value against the raw body.
     *
     * @throws WebhookVerificationException
     */
    public function verifyServiceSignature(string $rawBody, ?string $header): void
    {
        $timestamp = null;
        $signatures = [];
        foreach (explode(',', $header ?? '') as $part) {
            $pair = explode('=', $part, 2);
            if (count($pair) !== 2 || trim($pair[0]) === '') {
                throw self::malformed('X-Service-Signature is not t=<seconds>,v1=<hex>');
            }
            [$key, $value] = [trim($pair[0]), trim($pair[1])];
            if ($key === 't') {
                if ($timestamp !== null || preg_match('/^\d{1,15}$/', $value) !== 1) {
                    throw self::malformed('X-Service-Signature has no single numeric t');
                }
                $timestamp = $value;
            } elseif ($key === 'v1' && preg_match('/^[0-9a-fA-F]{64}$/', $value) === 1) {
                $signatures[] = strtolower($value);
            }
            // Other schemes (v0, a future v2) are ignored, so that the service can add one without breaking receivers.
        }
        if ($timestamp === null || $signatures === []) {
            throw self::malformed('X-Service-Signature lacks t or v1');
        }
        $this->checkTimestamp((int) $timestamp);
        $expected = hash_hmac('sha256', "{$timestamp}.{$rawBody}", $this->secret);
        self::checkAny($expected, $signatures);
    }

    /**
     * Verifies the Standard Webhooks headers against the raw body.
     *
     * @param array<string, string|string[]> $headers the request's headers; names are matched case-insensitively
     * @throws WebhookVerificationException
     */
    public function verifyStandardWebhook(string $rawBody, array $headers): void
    {
        $id = self::headerOf($headers, self::STANDARD_ID_HEADER);
        $timestamp = self::headerOf($headers, self::STANDARD_TIMESTAMP_HEADER);
        $signatureHeader = self::headerOf($headers, self::STANDARD_SIGNATURE_HEADER);
        if ($id === '' || preg_match('/^\d{1,15}$/', $timestamp) !== 1 || $signatureHeader === '') {
            throw self::malformed('the Standard Webhooks headers are missing or malformed');
        }
        $this->checkTimestamp((int) $timestamp);
        $signatures = [];
        foreach (preg_split('/\s+/', trim($signatureHeader)) ?: [] as $entry) {
            $pair = explode(',', $entry, 2);
            if (count($pair) === 2 && $pair[0] === 'v1') {
                $signatures[] = $pair[1];
            }
        }
        if ($signatures === []) {
            throw self::malformed('webhook-signature has no v1 entry');
        }
        $expected = base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$rawBody}", $this->standardKey(), true));
        self::checkAny($expected, $signatures);
    }

    /** The `X-Service-Signature` value Cobro would send for `rawBody` at `timestamp`: for testing a receiver. */
    public function signServicePayload(string $rawBody, ?int $timestamp = null): string
    {
        $timestamp ??= ($this->clock)();
        return sprintf('t=%d,v1=%s', $timestamp, hash_hmac('sha256', "{$timestamp}.{$rawBody}", $this->secret));
    }

    /**
     * The Standard Webhooks headers Cobro would send for `rawBody`: for testing a receiver.
     *
     * @return array{webhook-id: string, webhook-timestamp: string, webhook-signature: string}
     */
    public function signStandardWebhook(string $id, string $rawBody, ?int $timestamp = null): array
    {
        $timestamp ??= ($this->clock)();
        $signature = base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$rawBody}", $this->standardKey(), true));
        return [self::STANDARD_ID_HEADER => $id, self::STANDARD_TIMESTAMP_HEADER => (string) $timestamp, self::STANDARD_SIGNATURE_HEADER => "v1,{$signature}"];
    }

    private function standardKey(): string
    {
        $encoded = str_starts_with($this->secret, self::SECRET_PREFIX) ? substr($this->secret, strlen(self::SECRET_PREFIX)) : $this->secret;
        $key = base64_decode($encoded, true);
        if ($key === false || $key === '') {
            throw new \InvalidArgumentException('the signing secret is not whsec_ and base64: a legacy secret verifies with X-Service-Signature only');
        }
        return $key;
    }

    private function checkTimestamp(int $timestamp): void
    {
        if (abs(($this->clock)() - $timestamp) > $this->toleranceSeconds) {
            throw new WebhookVerificationException(WebhookVerificationException::STALE_TIMESTAMP, 'the signature timestamp is outside the tolerance');
        }
    }

    /** @param list<string> $candidates */
    private static function checkAny(string $expected, array $candidates): void
    {
        $matched = false;
        foreach ($candidates as $candidate) {
            // Every entry is compared (no early exit), each in constant time.
            $matched = hash_equals($expected, $candidate) || $matched;
        }
        if (!$matched) {
            throw new WebhookVerificationException(WebhookVerificationException::SIGNATURE_MISMATCH, 'no signature matches the body');
        }
    }

    /** @param array<string, string|string[]> $headers */
    private static function headerOf(array $headers, string $name): string
    {
        foreach ($headers as $key => $value) {
            if (strcasecmp((string) $key, $name) === 0) {
                // Repeated lines of webhook-signature are more entries of its space-separated list.
                return is_array($value) ? implode(' ', $value) : $value;
            }
        }
        return '';
    }

    private static function malformed(string $message): WebhookVerificationException
    {
        return new WebhookVerificationException(WebhookVerificationException::MALFORMED_HEADER, $message);
    }
}
