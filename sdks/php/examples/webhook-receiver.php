<?php

// The integrator's webhook endpoint, as a router script of PHP's built-in server (started by quickstart.php:
// `php -S 127.0.0.1:PORT webhook-receiver.php`). It verifies each request with the SDK before trusting
// anything in it, answers fast (2xx within 5 seconds, or Cobro retries), and appends what it verified to the
// spool file that quickstart.php reads. In a framework the handler is the same: Laravel and Symfony give a
// PSR-7 ServerRequestInterface through their PSR-7 bridges.
//
// Environment: COBRO_WEBHOOK_SECRET (the integration's signing secret), COBRO_EXAMPLE_SPOOL (a file).

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use Cobro\Sdk\Webhook\WebhookVerificationException;
use Cobro\Sdk\Webhook\WebhookVerifier;
use GuzzleHttp\Psr7\ServerRequest;

$request = ServerRequest::fromGlobals();
if ($request->getMethod() !== 'POST') {
    http_response_code(405);
    return;
}
$rawBody = (string) $request->getBody();
$verifier = new WebhookVerifier((string) getenv('COBRO_WEBHOOK_SECRET'));
$record = ['webhookId' => $request->getHeaderLine(WebhookVerifier::WEBHOOK_ID_HEADER)];
try {
    // X-Service-Signature (verify() prefers it), then the same delivery's Standard Webhooks signature.
    $event = $verifier->verify($request);
    $verifier->verifyStandardWebhook($rawBody, $request->getHeaders());
    $record += ['verified' => true, 'event' => $event];
    http_response_code(200);
} catch (WebhookVerificationException $error) {
    $record += ['verified' => false, 'problem' => $error->problem()];
    http_response_code(400);
}
file_put_contents((string) getenv('COBRO_EXAMPLE_SPOOL'), json_encode($record) . "\n", FILE_APPEND | LOCK_EX);
