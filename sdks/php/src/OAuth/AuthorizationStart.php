<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

/** Where to send the merchant's browser, and what to keep (e.g. in the session) until it comes back. */
final class AuthorizationStart
{
    public function __construct(
        public readonly string $url,
        public readonly string $state,
        public readonly string $codeVerifier,
    ) {
    }
}
