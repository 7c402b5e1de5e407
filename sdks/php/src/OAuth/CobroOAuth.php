<?php

declare(strict_types=1);

namespace Cobro\Sdk\OAuth;

use Cobro\Sdk\Exception\CobroApiException;
use Cobro\Sdk\Exception\NoAnswerException;
use Cobro\Sdk\Generated\Auth\Api\OAuthApi;
use Cobro\Sdk\Generated\Auth\Configuration as AuthConfiguration;
use Cobro\Sdk\Generated\Auth\Model\CodeExchange;
use Cobro\Sdk\Generated\Auth\Model\RefreshRequest;
use Cobro\Sdk\Generated\Auth\Model\RevokeRequest;
use Cobro\Sdk\Generated\Auth\ObjectSerializer;
use Cobro\Sdk\Generated\Auth\Model\TokenSet;
use Cobro\Sdk\Generated\Integration\Configuration as IntegrationConfiguration;
use GuzzleHttp\Client;
use GuzzleHttp\ClientInterface;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\RequestOptions;

/**
 * Linking merchant accounts to an integration with OAuth 2.0 (authorization code, PKCE S256), and the token
 * calls of the Auth API in the JSON form Cobro documents. For the integrator's backend: it holds the client
 * secret.
 *
 *     $oauth = new CobroOAuth($authUrl, $clientId, $clientSecret);
 *     $start = $oauth->authorizationUrl($redirectUri);          // keep $start->state and $start->codeVerifier
 *     // … the merchant signs in and comes back to $redirectUri?code=…&state=…
 *     $tokens = $oauth->exchangeCode($code, $redirectUri, $start->codeVerifier);
 *     $store->save($merchantKey, $tokens);
 *     $config = $oauth->integrationConfiguration($integrationUrl, $store, $merchantKey); // refreshed when due
 */
final class CobroOAuth
{
    private readonly string $authUrl;
    private readonly ClientInterface $http;
    private readonly OAuthApi $api;
    /** @var \Closure(): int */
    private readonly \Closure $clock;

    /** @param (callable(): int)|null $clock the current Unix time in seconds; default time() */
    public function __construct(
        string $authUrl,
        private readonly string $clientId,
        #[\SensitiveParameter] private readonly string $clientSecret,
        ?ClientInterface $http = null,
        ?callable $clock = null,
    ) {
        $this->authUrl = rtrim($authUrl, '/');
        $this->http = $http ?? new Client([RequestOptions::TIMEOUT => 30]);
        $this->api = new OAuthApi($this->http, (new AuthConfiguration())->setHost($this->authUrl));
        $this->clock = $clock !== null ? \Closure::fromCallable($clock) : static fn (): int => time();
    }

    /**
     * The authorization URL, with a `state` and a PKCE S256 challenge (random ones unless given).
     *
     * @param string $redirectUri identical to a registered redirect URI (scheme, host, path, trailing slash)
     * @param string|null $scope default on the service: `openid email profile`
     */
    public function authorizationUrl(string $redirectUri, ?string $scope = null, ?string $state = null, ?string $codeVerifier = null): AuthorizationStart
    {
        $state ??= Pkce::randomToken();
        $codeVerifier ??= Pkce::randomToken();
        $query = [
            'response_type' => 'code',
            'client_id' => $this->clientId,
            'redirect_uri' => $redirectUri,
            'state' => $state,
        ];
        if ($scope !== null) {
            $query['scope'] = $scope;
        }
        $query['code_challenge'] = Pkce::challenge($codeVerifier);
        $query['code_challenge_method'] = 'S256';
        $url = "{$this->authUrl}/integration/oauth2/authorize?" . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        return new AuthorizationStart($url, $state, $codeVerifier);
    }

    /**
     * Exchanges the redirect's `code` for tokens (compare the redirect's `state` with yours first).
     *
     * @throws CobroApiException
     */
    public function exchangeCode(string $code, string $redirectUri, ?string $codeVerifier): Tokens
    {
        $exchange = new CodeExchange([
            'grantType' => 'authorization_code',
            'code' => $code,
            'clientId' => $this->clientId,
            'clientSecret' => $this->clientSecret,
            'redirectUri' => $redirectUri,
            'codeVerifier' => $codeVerifier,
        ]);
        // The request is the generated one; the answer is read here as the JSON form (TokenSet), because the
        // generated reader merges it with the standard form's fields (`id_token` over `idToken`).
        $request = $this->api->exchangeTokenRequest($exchange);
        try {
            $response = $this->http->send($request, [RequestOptions::HTTP_ERRORS => false]);
        } catch (ConnectException $error) {
            throw new NoAnswerException($error->getMessage(), $error);
        }
        $raw = (string) $response->getBody();
        if ($response->getStatusCode() < 200 || $response->getStatusCode() > 299) {
            throw CobroApiException::fromResponse($response->getStatusCode(), $raw, $response->getHeaders());
        }
        /** @var TokenSet $set */
        $set = ObjectSerializer::deserialize(json_decode($raw, false, 512, JSON_THROW_ON_ERROR), TokenSet::class);
        if (!is_string($set->getIdToken()) || !is_string($set->getRefreshToken())) {
            throw new \UnexpectedValueException('the token endpoint did not answer a TokenSet');
        }
        return new Tokens($set->getIdToken(), $set->getRefreshToken(), ($this->clock)() + (int) $set->getExpiresIn());
    }

    /**
     * A new idToken for a stored refresh token (which stays the same: it is not rotated).
     *
     * @throws CobroApiException
     */
    public function refresh(string $refreshToken): Tokens
    {
        $refreshed = CobroApiException::wrap(fn () => $this->api->refreshToken(new RefreshRequest([
            'grantType' => 'refresh_token',
            'refreshToken' => $refreshToken,
            'clientId' => $this->clientId,
            'clientSecret' => $this->clientSecret,
        ])));
        return new Tokens($refreshed->getIdToken(), $refreshToken, ($this->clock)() + (int) $refreshed->getExpiresIn());
    }

    /**
     * Revokes a refresh token (and the idTokens issued from it); succeeds for unknown or revoked tokens too.
     *
     * @param 'refresh_token'|'id_token' $tokenTypeHint
     * @throws CobroApiException
     */
    public function revoke(string $token, string $tokenTypeHint = 'refresh_token'): void
    {
        CobroApiException::wrap(fn () => $this->api->revokeToken(new RevokeRequest([
            'token' => $token,
            'tokenTypeHint' => $tokenTypeHint,
            'clientId' => $this->clientId,
            'clientSecret' => $this->clientSecret,
        ])));
    }

    /**
     * The stored tokens of a merchant account, with the idToken refreshed first (and the result saved) when
     * it expires within `marginSeconds`.
     *
     * @throws CobroApiException
     */
    public function freshTokens(TokenStore $store, string $merchantKey, int $marginSeconds = 60): Tokens
    {
        $tokens = $store->load($merchantKey) ?? throw new \OutOfBoundsException("no tokens stored for merchant {$merchantKey}: link it first");
        if ($tokens->expiresAt - $marginSeconds > ($this->clock)()) {
            return $tokens;
        }
        $fresh = $this->refresh($tokens->refreshToken);
        $store->save($merchantKey, $fresh);
        return $fresh;
    }

    /**
     * A configuration of the generated Integration API clients that acts for a merchant account, with a fresh
     * idToken. Make one per unit of work (a request, a job): the token in it is not renewed afterwards.
     *
     * @throws CobroApiException
     */
    public function integrationConfiguration(string $integrationUrl, TokenStore $store, string $merchantKey): IntegrationConfiguration
    {
        return (new IntegrationConfiguration())
            ->setHost(rtrim($integrationUrl, '/'))
            ->setAccessToken($this->freshTokens($store, $merchantKey)->idToken);
    }
}
