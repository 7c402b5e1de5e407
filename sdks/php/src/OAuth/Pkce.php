<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

/** PKCE (RFC 7636) with the S256 method, and the random `state`. */
final class Pkce
{
    /** 32 random bytes, base64url: a `state` or a code verifier (43 characters, as RFC 7636 asks). */
    public static function randomToken(): string
    {
        return self::base64url(random_bytes(32));
    }

    /** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
    public static function challenge(string $codeVerifier): string
    {
        return self::base64url(hash('sha256', $codeVerifier, true));
    }

    private static function base64url(string $bytes): string
    {
        return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
    }
}
