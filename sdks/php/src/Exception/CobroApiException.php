<?php

declare(strict_types=1);

namespace Cobro\Sdk\Exception;

use Cobro\Sdk\Generated\Admin\ApiException as AdminApiException;
use Cobro\Sdk\Generated\Auth\ApiException as AuthApiException;
use Cobro\Sdk\Generated\Integration\ApiException as IntegrationApiException;

/**
 * A non-2xx answer of any of Cobro's APIs, with its error body read: decide by `status()`, then by
 * `errorCode()`, never by the message. Subclasses name the statuses a caller usually branches on
 * (ValidationException, NotFoundException, ConflictException, …); `NoAnswerException` is the request that got
 * no answer at all. The generated clients' calls throw them (their ApiException is the previous one).
 *
 *     try {
 *         $charge = $charges->getPaymentRequest('INV-1');
 *     } catch (NotFoundException $e) {
 *         // no such charge
 *     }
 */
class CobroApiException extends \RuntimeException
{
    /**
     * @param array<string, mixed>|null $body the JSON error body, or null when it was not JSON
     * @param array<string, string[]> $headers
     */
    public function __construct(
        private readonly int $status,
        private readonly ?array $body,
        private readonly array $headers = [],
        ?\Throwable $previous = null,
    ) {
        $code = $this->errorCode();
        $text = is_string($body['message'] ?? null) ? $body['message'] : 'no error message';
        $summary = $status === 0 ? $text : sprintf('Cobro answered %d%s: %s', $status, $code !== null ? " {$code}" : '', $text);
        parent::__construct($summary, $status, $previous);
    }

    /**
     * Runs a generated client's call and turns its ApiException into the typed exception of its answer. The
     * calls throw the typed exceptions themselves now; this stays for code written before, and for a call
     * that still throws a generated ApiException (a client generated without Cobro's post-processing).
     *
     * @template T
     * @param callable(): T $call
     * @return T
     */
    public static function wrap(callable $call): mixed
    {
        try {
            return $call();
        } catch (IntegrationApiException | AuthApiException | AdminApiException $error) {
            throw self::fromApiException($error);
        }
    }

    /** The typed exception of a generated client's ApiException (of any of the three APIs). */
    public static function fromApiException(IntegrationApiException | AuthApiException | AdminApiException $error): self
    {
        $status = $error->getCode();
        $raw = $error->getResponseBody();
        // Guzzle's connection errors and timeouts reach the generated clients' ApiException as code 0, no body.
        if ($status < 100) {
            return new NoAnswerException($error->getMessage(), $error);
        }
        return self::fromResponse($status, is_string($raw) ? $raw : null, $error->getResponseHeaders() ?? [], $error);
    }

    /**
     * The typed exception of an answer's status and raw body.
     *
     * @param array<string, string[]> $headers
     */
    public static function fromResponse(int $status, ?string $rawBody, array $headers = [], ?\Throwable $previous = null): self
    {
        $body = null;
        if ($rawBody !== null && $rawBody !== '') {
            $decoded = json_decode($rawBody, true);
            $body = is_array($decoded) ? $decoded : null;
        }
        $class = match (true) {
            $status === 400 => ValidationException::class,
            $status === 401 => AuthenticationException::class,
            $status === 403 => ForbiddenException::class,
            $status === 404 => NotFoundException::class,
            $status === 409 => ConflictException::class,
            $status === 422 => UnprocessableException::class,
            $status === 429 => RateLimitException::class,
            $status >= 500 => ServerException::class,
            default => self::class,
        };
        return new $class($status, $body, $headers, $previous);
    }

    /** The HTTP status. */
    public function status(): int
    {
        return $this->status;
    }

    /**
     * The machine-readable code: the body's `code`, or else its `error` (a few bodies, such as the 409
     * `ReferenceIdAlreadyExists`, name it so). Some codes end in `Error` and some do not; treat
     * `ReferenceIdAlreadyExists` and `ReferenceIdAlreadyExistsError` as equal.
     */
    public function errorCode(): ?string
    {
        foreach (['code', 'error'] as $key) {
            if (is_string($this->body[$key] ?? null)) {
                return $this->body[$key];
            }
        }
        return null;
    }

    /** The body's `message` (English, for a developer's log). */
    public function errorMessage(): ?string
    {
        return is_string($this->body['message'] ?? null) ? $this->body['message'] : null;
    }

    /**
     * The error's id: quote it to Cobro's support, it finds the request in the service's logs. The body's `id`,
     * or else the answer's `X-Request-Id` header (a few bodies, such as the 409 `ReferenceIdAlreadyExists`,
     * have no `id`; every answer has the header).
     */
    public function errorId(): ?string
    {
        return is_string($this->body['id'] ?? null) ? $this->body['id'] : $this->header('X-Request-Id');
    }

    /**
     * The fields that failed validation (a 400 `ValidationError`), in the body's order: each with `field` and
     * `message`, and `rule`, `limit`, `format`, `fields` when the body has them. Empty when there are none.
     *
     * @return list<array{field: string, message: string, rule?: string, limit?: int|float, format?: string, fields?: list<string>}>
     */
    public function validationDetails(): array
    {
        $details = [];
        foreach (is_array($this->body['validationDetails'] ?? null) ? $this->body['validationDetails'] : [] as $detail) {
            if (!is_array($detail) || !is_string($detail['field'] ?? null) || !is_string($detail['message'] ?? null)) {
                continue;
            }
            $details[] = array_intersect_key($detail, array_flip(['field', 'message', 'rule', 'limit', 'format', 'fields']));
        }
        return $details;
    }

    /**
     * The whole error body, as JSON decoded to arrays (null when it was not JSON).
     *
     * @return array<string, mixed>|null
     */
    public function body(): ?array
    {
        return $this->body;
    }

    /**
     * The answer's headers (e.g. `Retry-After` of a 429).
     *
     * @return array<string, string[]>
     */
    public function headers(): array
    {
        return $this->headers;
    }

    /** One header's first value, by case-insensitive name. */
    public function header(string $name): ?string
    {
        foreach ($this->headers as $key => $values) {
            if (strcasecmp($key, $name) === 0) {
                return is_array($values) ? ($values[0] ?? null) : (string) $values;
            }
        }
        return null;
    }
}
