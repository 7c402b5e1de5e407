<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

/**
 * Where the caller keeps each linked merchant account's tokens (a database row, an encrypted cache, …),
 * under a key of its own choosing (its own id of the merchant). The refresh token is a credential: store it
 * as one.
 */
interface TokenStore
{
    public function load(string $merchantKey): ?Tokens;

    public function save(string $merchantKey, Tokens $tokens): void;
}
