<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

/** A TokenStore for one process (scripts and tests): gone when the process ends. */
final class InMemoryTokenStore implements TokenStore
{
    /** @var array<string, Tokens> */
    private array $tokens = [];

    public function load(string $merchantKey): ?Tokens
    {
        return $this->tokens[$merchantKey] ?? null;
    }

    public function save(string $merchantKey, Tokens $tokens): void
    {
        $this->tokens[$merchantKey] = $tokens;
    }
}
