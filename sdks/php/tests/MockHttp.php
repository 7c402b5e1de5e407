<?php

declare(strict_types=1);

namespace Cobro\Sdk\Tests;

use GuzzleHttp\Client;
use GuzzleHttp\Handler\MockHandler;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use GuzzleHttp\Psr7\Response;
use Psr\Http\Message\RequestInterface;

/** A Guzzle client that answers from a script and records each request it was sent. */
final class MockHttp
{
    /** @var list<array{request: RequestInterface}> */
    public array $history = [];
    public readonly Client $client;

    /** @param list<Response|\Throwable> $answers */
    public function __construct(array $answers)
    {
        $stack = HandlerStack::create(new MockHandler($answers));
        $stack->push(Middleware::history($this->history));
        $this->client = new Client(['handler' => $stack]);
    }

    /** @param array<string, mixed> $body */
    public static function json(int $status, array $body): Response
    {
        return new Response($status, ['Content-Type' => 'application/json'], json_encode($body, JSON_THROW_ON_ERROR));
    }

    /** @return list<string> "METHOD path" of each request sent, in order */
    public function calls(): array
    {
        return array_map(static fn (array $entry): string => $entry['request']->getMethod() . ' ' . $entry['request']->getUri()->getPath(), $this->history);
    }

    /** @return array<string, mixed> the JSON body of the n-th request */
    public function jsonSent(int $index): array
    {
        return json_decode((string) $this->history[$index]['request']->getBody(), true, 512, JSON_THROW_ON_ERROR);
    }
}
