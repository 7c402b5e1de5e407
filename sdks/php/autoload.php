<?php

// Loads the package without Composer: its own classes by the PSR-4 map of composer.json, and Guzzle with
// PSR-7 from the include path (Debian's php-guzzlehttp-guzzle installs them in /usr/share/php). A project that
// installs the package with Composer uses vendor/autoload.php instead and needs none of this.

declare(strict_types=1);

if (is_file(__DIR__ . '/vendor/autoload.php')) {
    require_once __DIR__ . '/vendor/autoload.php';
    return;
}

if (!stream_resolve_include_path('GuzzleHttp/autoload.php')) {
    throw new RuntimeException('Guzzle is missing: install php-guzzlehttp-guzzle (Debian) or run composer install');
}
require_once 'GuzzleHttp/autoload.php';

$cobroSdkPsr4 = (static function (): array {
    $composer = json_decode((string) file_get_contents(__DIR__ . '/composer.json'), true, 512, JSON_THROW_ON_ERROR);
    $map = $composer['autoload']['psr-4'] + $composer['autoload-dev']['psr-4'];
    // The longest prefix first: Cobro\Sdk\Generated\… before Cobro\Sdk\….
    uksort($map, static fn (string $a, string $b): int => strlen($b) <=> strlen($a));
    return $map;
})();

spl_autoload_register(static function (string $class) use ($cobroSdkPsr4): void {
    foreach ($cobroSdkPsr4 as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = __DIR__ . '/' . $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
unset($cobroSdkPsr4);
