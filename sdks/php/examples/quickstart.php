<?php

// An integrator's backend against a local Cobro Sandbox, end to end, with the PHP SDK:
//
//   1. link the merchant account through OAuth (authorization URL with state and PKCE, code exchange);
//   2. start a webhook receiver (webhook-receiver.php on PHP's built-in server) and register it;
//   3. create a charge with ChargeRetry::createOrGet (the retry guidance), due 5 days after the Sandbox's today;
//   4. simulate the payer's transfer (Admin API, Sandbox tools);
//   5. receive the payment_received webhook, verified by the receiver with the SDK's WebhookVerifier;
//   6. read the charge back;
//   7. delete the webhook URL it registered (left behind, it would keep receiving the integration's events).
//
// Run it from sdks/php (PHP 8.1+ with Guzzle: Debian's php-cli, php-curl, php-mbstring and
// php-guzzlehttp-guzzle, or `composer install`):
//   php examples/quickstart.php ../../.data/sandbox.json      # or COBRO_SANDBOX_FILE=…, or COBRO_SANDBOX_JSON='{…}'
// The Sandbox file is what `npm start` writes on its first start (add integrationApiUrl, authApiUrl and
// adminApiUrl when they are not localhost:3000, :3001 and :3002). The Sandbox must accept a webhook URL on
// loopback: start it with COBRO_ALLOW_LOOPBACK_URLS=true.
//
// The last line printed is a JSON summary: {"referenceId", "state", "webhook", "assignedTo", "assignedChargeState", "returnState"}.

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use Cobro\Sdk\Exception\CobroApiException;
use Cobro\Sdk\Exception\NotFoundException;
use Cobro\Sdk\Generated\Admin\Api\ClientURLsApi;
use Cobro\Sdk\Generated\Admin\Api\SandboxApi;
use Cobro\Sdk\Generated\Admin\Api\UnmatchedPaymentsApi;
use Cobro\Sdk\Generated\Admin\Api\WebhooksApi;
use Cobro\Sdk\Generated\Admin\Configuration as AdminConfiguration;
use Cobro\Sdk\Generated\Admin\Model\ClientUrlCreate;
use Cobro\Sdk\Generated\Admin\Model\SimulatePaymentRequest;
use Cobro\Sdk\Generated\Admin\Model\UnmatchedPaymentAssignmentRequest;
use Cobro\Sdk\Generated\Admin\Model\UnmatchedPaymentReturnRequest;
use Cobro\Sdk\Generated\Auth\Api\AdminSessionApi;
use Cobro\Sdk\Generated\Auth\Configuration as AuthConfiguration;
use Cobro\Sdk\Generated\Auth\Model\AdminLogin;
use Cobro\Sdk\Generated\Integration\Api\MerchantApi;
use Cobro\Sdk\Generated\Integration\Api\PaymentRequestsApi;
use Cobro\Sdk\Generated\Integration\Configuration as IntegrationConfiguration;
use Cobro\Sdk\Generated\Integration\Model\CustomerInput;
use Cobro\Sdk\Generated\Integration\Model\PaymentRequestCreate;
use Cobro\Sdk\Generated\Integration\Model\PaymentRequestCreateSurcharge;
use Cobro\Sdk\Generated\Integration\Model\SurchargeType;
use Cobro\Sdk\OAuth\CobroOAuth;
use Cobro\Sdk\OAuth\InMemoryTokenStore;
use Cobro\Sdk\Retry\ChargeRetry;
use GuzzleHttp\Client;
use GuzzleHttp\RequestOptions;

function say(string $message): void
{
    echo "[quickstart] {$message}\n";
}

/** @return array<string, mixed> */
function readSandbox(array $argv): array
{
    $path = $argv[1] ?? (getenv('COBRO_SANDBOX_FILE') ?: null);
    $text = $path !== null ? file_get_contents($path) : getenv('COBRO_SANDBOX_JSON');
    if (!is_string($text) || $text === '') {
        throw new RuntimeException('pass the Sandbox file (php quickstart.php sandbox.json), or set COBRO_SANDBOX_FILE or COBRO_SANDBOX_JSON');
    }
    return json_decode($text, true, 512, JSON_THROW_ON_ERROR) + [
        'integrationApiUrl' => 'http://localhost:3000',
        'authApiUrl' => 'http://localhost:3001',
        'adminApiUrl' => 'http://localhost:3002',
    ];
}

/**
 * WHAT THE MERCHANT'S BROWSER DOES, not the integrator's code: open the authorization URL, sign in on Cobro's
 * screen, follow the redirect back to the redirect URI. Done over plain HTTP so that the example runs
 * unattended: read the form's hidden fields and its CSRF cookie, post the merchant's email and password, and
 * take the Location of the 303 instead of following it.
 *
 * @param array{email: string, password: string} $merchant
 * @return array<string, string> the callback's query parameters
 */
function browserSignsIn(Client $http, string $authorizationUrl, array $merchant): array
{
    $screen = $http->get($authorizationUrl, [RequestOptions::HTTP_ERRORS => false]);
    $page = (string) $screen->getBody();
    if ($screen->getStatusCode() !== 200) {
        throw new RuntimeException("the authorization screen answered {$screen->getStatusCode()}: " . substr($page, 0, 200));
    }
    $field = static fn (string $name): string => preg_match('/name="' . $name . '" value="([^"]*)"/', $page, $m) === 1 ? html_entity_decode($m[1]) : '';
    $action = preg_match('/<form[^>]*action="([^"]+)"/', $page, $m) === 1 ? html_entity_decode($m[1]) : '/integration/oauth2/complete-login';
    $target = (string) \GuzzleHttp\Psr7\UriResolver::resolve(new \GuzzleHttp\Psr7\Uri($authorizationUrl), new \GuzzleHttp\Psr7\Uri($action));
    $cookie = explode(';', $screen->getHeaderLine('Set-Cookie'))[0];
    $signIn = $http->post($target, [
        RequestOptions::HTTP_ERRORS => false,
        RequestOptions::ALLOW_REDIRECTS => false,
        RequestOptions::HEADERS => ['Cookie' => $cookie],
        RequestOptions::FORM_PARAMS => ['transaction' => $field('transaction'), 'csrf' => $field('csrf'), 'email' => $merchant['email'], 'password' => $merchant['password']],
    ]);
    $location = $signIn->getHeaderLine('Location');
    if ($signIn->getStatusCode() !== 303 || $location === '') {
        throw new RuntimeException("the sign-in answered {$signIn->getStatusCode()}: " . substr((string) $signIn->getBody(), 0, 200));
    }
    parse_str((string) parse_url($location, PHP_URL_QUERY), $query);
    return $query;
}

/**
 * Starts webhook-receiver.php on PHP's built-in server, on a free loopback port.
 *
 * @return array{url: string, process: resource}
 */
function startWebhookReceiver(string $secret, string $spool): array
{
    $probe = stream_socket_server('tcp://127.0.0.1:0');
    $port = (int) substr((string) strrchr((string) stream_socket_get_name($probe, false), ':'), 1);
    fclose($probe);
    $env = ['COBRO_WEBHOOK_SECRET' => $secret, 'COBRO_EXAMPLE_SPOOL' => $spool] + getenv();
    $null = ['file', '/dev/null', 'w'];
    $process = proc_open([PHP_BINARY, '-S', "127.0.0.1:{$port}", __DIR__ . '/webhook-receiver.php'], [0 => ['file', '/dev/null', 'r'], 1 => $null, 2 => $null], $pipes, null, $env);
    if (!is_resource($process)) {
        throw new RuntimeException('could not start the webhook receiver');
    }
    for ($tries = 0; $tries < 100; $tries++) {
        $socket = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.1);
        if ($socket !== false) {
            fclose($socket);
            return ['url' => "http://127.0.0.1:{$port}/webhooks/cobro", 'process' => $process];
        }
        usleep(50_000);
    }
    proc_terminate($process);
    throw new RuntimeException("the webhook receiver did not start on port {$port}");
}

/** @return array<string, mixed>|null the receiver's record of the webhook for $referenceId */
function waitForWebhook(string $spool, string $referenceId, int $timeoutMs): ?array
{
    $deadline = microtime(true) + $timeoutMs / 1000;
    do {
        foreach (is_file($spool) ? (file($spool, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: []) : [] as $line) {
            $record = json_decode($line, true);
            if (is_array($record) && ($record['event']['referenceId'] ?? null) === $referenceId) {
                return $record;
            }
        }
        usleep(100_000);
    } while (microtime(true) < $deadline);
    return null;
}

function addDays(string $date, int $days): string
{
    return (new DateTimeImmutable("{$date}T00:00:00Z"))->modify("+{$days} days")->format('Y-m-d');
}

function main(array $argv): void
{
    $sandbox = readSandbox($argv);
    ['integrationApiUrl' => $integrationUrl, 'authApiUrl' => $authUrl, 'adminApiUrl' => $adminUrl] = $sandbox;
    ['clientId' => $clientId, 'clientSecret' => $clientSecret, 'redirectUri' => $redirectUri] = $sandbox['integration'];
    $http = new Client([RequestOptions::TIMEOUT => 30]);

    // 1. Link the merchant account (OAuth 2.0 authorization code with PKCE).
    $oauth = new CobroOAuth($authUrl, $clientId, $clientSecret, $http);
    $start = $oauth->authorizationUrl($redirectUri); // keep $start->state and $start->codeVerifier in the session
    say("send the merchant's browser to {$start->url}");
    $callback = browserSignsIn($http, $start->url, $sandbox['merchant']);
    if (!hash_equals($start->state, $callback['state'] ?? '')) {
        throw new RuntimeException('the state that came back is not ours: refuse the callback');
    }
    $tokens = $oauth->exchangeCode($callback['code'] ?? '', $redirectUri, $start->codeVerifier);
    $store = new InMemoryTokenStore(); // yours: a database row per merchant account
    $store->save('merchant-1', $tokens);
    say('merchant linked: idToken until ' . gmdate('H:i:s', $tokens->expiresAt) . ' UTC; keep the refreshToken');
    $integration = $oauth->integrationConfiguration($integrationUrl, $store, 'merchant-1');
    $me = (new MerchantApi($http, $integration))->getMe();
    say("acting for merchant account {$me->getMerchantUserId()} (" . ($me->getFantasyName() ?? $me->getEmail()) . ')');

    // The integration admin's side (usually done once, in the Admin API's console): an admin session.
    $session = (new AdminSessionApi($http, (new AuthConfiguration())->setHost($authUrl)))
        ->adminLogin(new AdminLogin($sandbox['integrationAdmin']));
    $admin = (new AdminConfiguration())->setHost($adminUrl)->setAccessToken($session->getIdToken());
    $webhooks = new WebhooksApi($http, $admin);
    $clientUrls = new ClientURLsApi($http, $admin);
    $sandboxTools = new SandboxApi($http, $admin);

    // Sandbox test tokens: the integration's test merchant account, without the OAuth flow (to try the
    // Integration API in the Sandbox; a real merchant account is linked as in step 1).
    $testTokens = $sandboxTools->createTestTokens();
    $testMerchant = (new IntegrationConfiguration())->setHost($integrationUrl)->setAccessToken($testTokens->getIdToken());
    $testMe = (new MerchantApi($http, $testMerchant))->getMe();
    say("test tokens: the Sandbox's test merchant account is {$testMe->getMerchantUserId()}");

    // 2. The signing secret (created when the integration has none yet), the receiver, and its registration.
    try {
        $secret = $webhooks->getWebhookSigningSecret()->getWebhookSigningSecret();
    } catch (NotFoundException) {
        $secret = $webhooks->rotateWebhookSigningSecret()->getWebhookSigningSecret();
    }
    $spool = (string) tempnam(sys_get_temp_dir(), 'cobro-webhooks-');
    $receiver = startWebhookReceiver($secret, $spool);
    $registeredUrlId = null;
    $summary = null;
    try {
        $registered = $clientUrls->createClientUrl(new ClientUrlCreate(['url' => $receiver['url'], 'urlType' => 'webhook']));
        $registeredUrlId = $registered->getClientUrlId();
        say("webhook URL {$receiver['url']} registered (ping: " . ($registered->getVerification()?->getStatus() ?? 'not sent')
            . ', receives the events: ' . json_encode($registered->getReceivesEvents()) . ')');

        // 3. A charge. createOrGet is safe to call again after a timeout or a 5xx: the referenceId is the key.
        $today = $sandboxTools->getSandboxClock()->getToday();
        $referenceId = 'PHP-EXAMPLE-' . base_convert((string) (int) (microtime(true) * 1000), 10, 36);
        $charges = new PaymentRequestsApi($http, $integration);
        $created = (new ChargeRetry($charges))->createOrGet(new PaymentRequestCreate([
            'referenceId' => $referenceId,
            'description' => 'Cuota de diciembre',
            // Two due dates: from the day after the first, the surcharge applies (10% here).
            'dueDates' => [addDays($today, 5), addDays($today, 15)],
            'amount' => 1500.5,
            'surcharge' => new PaymentRequestCreateSurcharge(['type' => SurchargeType::PERCENTAGE, 'value' => 10]),
            // Reconciled by the payer's CUIL: the transfer below comes from this CUIL.
            'conciliationType' => 'cuil',
            'customer' => new CustomerInput(['name' => 'Juan Pérez', 'taxDocument' => '20301234563']),
            'sendWhatsappNotification' => false,
            'sendEmailNotification' => false,
        ]));
        $cvu = $created->paymentRequest->getCVU();
        say("charge {$referenceId} {$created->outcome}: {$created->paymentRequest->getState()}, pay {$created->paymentRequest->getAmount()} to CVU {$cvu}");

        // A non-2xx answer is a typed exception: decide by its type (status), then by errorCode().
        // (Read on purpose: a referenceId this integration never used.)
        try {
            $charges->getPaymentRequest('INV-2026-999999');
        } catch (NotFoundException $error) {
            say("typed exceptions: an unused referenceId throws NotFoundException (id {$error->errorId()}), as expected");
        }

        // 4. The payer transfers (simulated: the Sandbox's stand-in for the bank).
        $transfer = $sandboxTools->simulatePayment(new SimulatePaymentRequest([
            'cvu' => $cvu,
            'amount' => 1500.5,
            'externalAccountCvu' => '0000003100000000000017',
            'externalAccountCuil' => '20301234563',
            'externalAccountName' => 'Juan Pérez',
        ]));
        say("transfer {$transfer->getIdTransaccion()}: conciliated " . json_encode($transfer->getConciliated()));

        // 5. The webhook, as the receiver verified it (both signatures, over the raw body).
        $timeoutMs = (int) (getenv('COBRO_WEBHOOK_TIMEOUT_MS') ?: 15000);
        $delivery = waitForWebhook($spool, $referenceId, $timeoutMs) ?? throw new RuntimeException("no webhook for {$referenceId} within {$timeoutMs} ms");
        if ($delivery['verified'] !== true) {
            throw new RuntimeException("webhook {$delivery['webhookId']} refused: {$delivery['problem']}");
        }
        say("webhook {$delivery['webhookId']} verified (X-Service-Signature and Standard Webhooks): {$delivery['event']['event']}, stateType {$delivery['event']['stateType']}");

        // 6. Read the charge back.
        $charge = $charges->getPaymentRequest($referenceId);
        $surcharge = $charge->getSurcharge(); // a Surcharge (read), the same fields as PaymentRequestCreateSurcharge (create)
        say("charge {$referenceId} is {$charge->getState()} (surcharge {$surcharge->getType()} {$surcharge->getValue()} after the first due date)");

        // 7. Unmatched money: a transfer to a canceled charge's CVU matches no charge; the integration admin
        //    assigns it to the charge it was meant for, of the same merchant account.
        $simpleCharge = fn (string $suffix) => new PaymentRequestCreate([
            'referenceId' => "{$referenceId}-{$suffix}",
            'description' => 'Cuota de diciembre',
            'dueDates' => [addDays($today, 5)],
            'amount' => 800,
            'customer' => new CustomerInput(['name' => 'Juan Pérez']),
            'sendWhatsappNotification' => false,
            'sendEmailNotification' => false,
        ]);
        // (The charge it was meant for first: it takes the CVU the paid charge gave back, the canceled one a CVU of its own.)
        $meantFor = $charges->createPaymentRequest($simpleCharge('M'))->getReferenceId();
        $canceled = $charges->createPaymentRequest($simpleCharge('C'));
        $charges->cancelPaymentRequest($canceled->getReferenceId());
        $late = $sandboxTools->simulatePayment(new SimulatePaymentRequest([
            'cvu' => $canceled->getCVU(),
            'amount' => 800,
            'externalAccountCvu' => '0000003100000000000017',
            'externalAccountCuil' => '20301234563',
            'externalAccountName' => 'Juan Pérez',
        ]));
        $unmatched = new UnmatchedPaymentsApi($http, $admin);
        $page = $unmatched->listUnmatchedPayments(state: 'unresolved', reason: 'canceled', merchantUserId: $me->getMerchantUserId());
        $money = array_values(array_filter($page->getItems(), fn ($item) => $item->getTransactionId() === $late->getIdTransaccion()))[0];
        $assignment = $unmatched->assignUnmatchedPayment($money->getUnmatchedPaymentId(), new UnmatchedPaymentAssignmentRequest(['referenceId' => $meantFor]));
        say("unmatched transfer {$money->getTransactionId()} ({$money->getReason()}) assigned to {$assignment->getReferenceId()}: "
            . "{$assignment->getAssignedAmount()} applied, the charge is {$assignment->getPaymentRequestState()}");
        //    Another transfer to the canceled charge's CVU is sent back to the account it came from.
        $again = $sandboxTools->simulatePayment(new SimulatePaymentRequest([
            'cvu' => $canceled->getCVU(),
            'amount' => 800,
            'externalAccountCvu' => '0000003100000000000017',
            'externalAccountCuil' => '20301234563',
            'externalAccountName' => 'Juan Pérez',
        ]));
        $toReturn = array_values(array_filter(
            $unmatched->listUnmatchedPayments(state: 'unresolved', reason: 'canceled', merchantUserId: $me->getMerchantUserId())->getItems(),
            fn ($item) => $item->getTransactionId() === $again->getIdTransaccion(),
        ))[0];
        $idempotencyKey = bin2hex(random_bytes(16)); // keep it: asked again with it (a lost answer), the same return is answered, not a second one
        $return = $unmatched->returnUnmatchedPayment($toReturn->getUnmatchedPaymentId(), $idempotencyKey, new UnmatchedPaymentReturnRequest());
        say("unmatched transfer {$toReturn->getTransactionId()} returned: {$return->getAmount()} to {$return->getToCvu()}, {$return->getState()}");
        $summary = [
            'referenceId' => $referenceId,
            'state' => $charge->getState(),
            'webhook' => 'verified',
            'assignedTo' => $assignment->getReferenceId(),
            'assignedChargeState' => $assignment->getPaymentRequestState(),
            'returnState' => $return->getState(),
        ];
    } finally {
        proc_terminate($receiver['process']);
        proc_close($receiver['process']);
        @unlink($spool);
        // 8. The receiver is gone: delete its URL.
        if ($registeredUrlId !== null) {
            $clientUrls->deleteClientUrl($registeredUrlId);
            say("webhook URL {$receiver['url']} deleted");
        }
    }
    echo json_encode($summary), "\n";
}

try {
    main($argv);
} catch (CobroApiException $error) {
    fwrite(STDERR, "[quickstart] failed: {$error->getMessage()} (code " . ($error->errorCode() ?? '-') . ', id ' . ($error->errorId() ?? '-') . ")\n");
    exit(1);
}
