<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use Cobro\Sdk\Exception\AuthenticationException;
use Cobro\Sdk\Exception\ValidationException;
use Cobro\Sdk\OAuth\CobroOAuth;
use Cobro\Sdk\OAuth\InMemoryTokenStore;
use Cobro\Sdk\OAuth\Pkce;
use Cobro\Sdk\OAuth\Tokens;
use PHPUnit\Framework\TestCase;

final class OAuthTest extends TestCase
{
    private const NOW = 1_790_000_000;

    private function oauth(MockHttp $http, int $now = self::NOW): CobroOAuth
    {
        return new CobroOAuth('https://auth.sandbox.cobro.example/', 'client-1', 'secret-1', $http->client, static fn (): int => $now);
    }

    public function testTheChallengeIsS256OfTheVerifierAsRfc7636AppendixB(): void
    {
        $this->assertSame('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', Pkce::challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'));
    }

    public function testRandomTokensAre43Base64UrlCharactersAndDiffer(): void
    {
        $a = Pkce::randomToken();
        $this->assertMatchesRegularExpression('/^[A-Za-z0-9_-]{43}$/', $a);
        $this->assertNotSame($a, Pkce::randomToken());
    }

    public function testTheAuthorizationUrlCarriesStateAndAnS256ChallengeOfTheKeptVerifier(): void
    {
        $start = $this->oauth(new MockHttp([]))->authorizationUrl('https://shop.example/callback?x=1', 'openid email');
        $url = parse_url($start->url);
        $this->assertSame('https', $url['scheme']);
        $this->assertSame('auth.sandbox.cobro.example', $url['host']);
        $this->assertSame('/integration/oauth2/authorize', $url['path']);
        parse_str($url['query'], $query);
        $this->assertSame([
            'response_type' => 'code',
            'client_id' => 'client-1',
            'redirect_uri' => 'https://shop.example/callback?x=1',
            'state' => $start->state,
            'scope' => 'openid email',
            'code_challenge' => Pkce::challenge($start->codeVerifier),
            'code_challenge_method' => 'S256',
        ], $query);
        $this->assertMatchesRegularExpression('/^[A-Za-z0-9_-]{43}$/', $start->codeVerifier);
        $this->assertStringNotContainsString($start->codeVerifier, $start->url);
    }

    public function testTheCodeExchangeSendsCobrosJsonFormAndReadsTheTokenSet(): void
    {
        $http = new MockHttp([MockHttp::json(200, ['idToken' => 'id-1', 'refreshToken' => 'refresh-1', 'tokenType' => 'Bearer', 'expiresIn' => 3600])]);
        $tokens = $this->oauth($http)->exchangeCode('code-1', 'https://shop.example/callback', 'verifier-1');
        $this->assertEquals(new Tokens('id-1', 'refresh-1', self::NOW + 3600), $tokens);
        $this->assertSame(['POST /integration/oauth2/token'], $http->calls());
        $this->assertSame('application/json', $http->history[0]['request']->getHeaderLine('Content-Type'));
        $this->assertSame([
            'grantType' => 'authorization_code',
            'code' => 'code-1',
            'clientId' => 'client-1',
            'clientSecret' => 'secret-1',
            'redirectUri' => 'https://shop.example/callback',
            'codeVerifier' => 'verifier-1',
        ], $http->jsonSent(0));
    }

    public function testARefusedCodeThrowsTheTypedErrorWithTheBodysCode(): void
    {
        $http = new MockHttp([MockHttp::json(400, ['code' => 'InvalidGrantError', 'message' => 'The code is invalid or expired', 'id' => 'req-9'])]);
        try {
            $this->oauth($http)->exchangeCode('used', 'https://shop.example/callback', 'v');
            $this->fail('no exception');
        } catch (ValidationException $error) {
            $this->assertSame(400, $error->status());
            $this->assertSame('InvalidGrantError', $error->errorCode());
            $this->assertSame('The code is invalid or expired', $error->errorMessage());
            $this->assertSame('req-9', $error->errorId());
        }
    }

    public function testRefreshKeepsTheRefreshTokenAndRevokeSendsTheHint(): void
    {
        $http = new MockHttp([MockHttp::json(200, ['idToken' => 'id-2', 'tokenType' => 'Bearer', 'expiresIn' => 3600]), new \GuzzleHttp\Psr7\Response(200)]);
        $oauth = $this->oauth($http);
        $this->assertEquals(new Tokens('id-2', 'refresh-1', self::NOW + 3600), $oauth->refresh('refresh-1'));
        $oauth->revoke('refresh-1');
        $this->assertSame(['POST /integration/oauth2/refresh', 'POST /integration/oauth2/revoke'], $http->calls());
        $this->assertSame(['grantType' => 'refresh_token', 'refreshToken' => 'refresh-1', 'clientId' => 'client-1', 'clientSecret' => 'secret-1'], $http->jsonSent(0));
        $this->assertSame(['token' => 'refresh-1', 'tokenTypeHint' => 'refresh_token', 'clientId' => 'client-1', 'clientSecret' => 'secret-1'], $http->jsonSent(1));
    }

    public function testFreshTokensRefreshesOnlyWithinTheMarginAndSavesTheResult(): void
    {
        $http = new MockHttp([MockHttp::json(200, ['idToken' => 'id-new', 'tokenType' => 'Bearer', 'expiresIn' => 3600])]);
        $store = new InMemoryTokenStore();
        $store->save('merchant-7', new Tokens('id-old', 'refresh-7', self::NOW + 61));
        $this->assertSame('id-old', $this->oauth($http)->freshTokens($store, 'merchant-7')->idToken);
        $this->assertSame([], $http->calls());

        $config = $this->oauth($http, self::NOW + 2)->integrationConfiguration('https://api.sandbox.cobro.example/', $store, 'merchant-7');
        $this->assertSame('id-new', $config->getAccessToken());
        $this->assertSame('https://api.sandbox.cobro.example', $config->getHost());
        $this->assertEquals(new Tokens('id-new', 'refresh-7', self::NOW + 2 + 3600), $store->load('merchant-7'));
    }

    public function testARevokedRefreshTokenThrowsAuthenticationException(): void
    {
        $http = new MockHttp([MockHttp::json(401, ['code' => 'InvalidClientError', 'message' => 'Invalid client credentials'])]);
        $this->expectException(AuthenticationException::class);
        $this->oauth($http)->refresh('revoked');
    }
}
