<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

/**
 * A merchant account's tokens: the `idToken` (the Integration API's bearer, 1 hour) and the `refreshToken`
 * (180 days, not rotated: store it), with the Unix time the idToken expires at.
 */
final class Tokens
{
    public function __construct(
        public readonly string $idToken,
        public readonly string $refreshToken,
        public readonly int $expiresAt,
    ) {
    }

    /** @return array{idToken: string, refreshToken: string, expiresAt: int} */
    public function toArray(): array
    {
        return ['idToken' => $this->idToken, 'refreshToken' => $this->refreshToken, 'expiresAt' => $this->expiresAt];
    }

    /** @param array{idToken: string, refreshToken: string, expiresAt: int} $stored */
    public static function fromArray(array $stored): self
    {
        return new self($stored['idToken'], $stored['refreshToken'], (int) $stored['expiresAt']);
    }
}
