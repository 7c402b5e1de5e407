// The PHP SDK (sdks/php): its PHPUnit suite, and its webhook verifier against what the service itself signs
// (domain/webhooks/signature.ts), for both schemes: a delivery as sent passes, a forged, altered or stale one
// is refused with its reason. And its README's PHP blocks are the code of the examples the tests run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateSigningSecret } from "../../domain/webhooks/signature.ts";
import { phpAvailable, runInPhpSdk } from "../helpers/php.ts";
import { SIGNATURE_VERDICTS, webhookSignatureCases } from "../helpers/webhook-signature-cases.ts";

const root = join(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "cobro-php-sdk-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("sdks/php", () => {
  it("passes its PHPUnit suite, which covers the verifier's refusals, PKCE, the typed errors and the retry guidance", async ({ skip }) => {
    if (!(await phpAvailable(skip))) return;
    const report = join(scratch, "junit.xml");
    const { code, output } = await runInPhpSdk("phpunit", ["--configuration", "phpunit.xml.dist", "--log-junit", report], { timeoutMs: 120_000 });
    expect(code, output).toBe(0);
    const xml = readFileSync(report, "utf8");
    const suite = /<testsuite name="cobro-sdk" tests="(\d+)" assertions="\d+" errors="(\d+)" warnings="\d+" failures="(\d+)" skipped="(\d+)"/.exec(xml);
    expect(suite, xml.slice(0, 400)).not.toBeNull();
    const [, tests, errors, failures, skipped] = suite!.map(Number);
    expect({ errors, failures, skipped }).toEqual({ errors: 0, failures: 0, skipped: 0 });
    expect(tests).toBeGreaterThanOrEqual(39);
    const ran = new Set([...xml.matchAll(/<testcase name="(\w+)"/g)].map((match) => match[1]));
    for (const name of [
      "testAServiceSignatureOfTheBodyIsAcceptedAndTheEventReturned",
      "testAServiceSignatureMadeWithAnotherSecretIsRefused",
      "testAnAlteredBodyFailsTheServiceSignature",
      "testAServiceSignatureOutsideTheToleranceIsStaleEitherWay",
      "testAStandardWebhooksSignatureIsAcceptedAndKeyedWithTheDecodedSecret",
      "testAStandardWebhooksSignatureMadeWithAnotherSecretIsRefused",
      "testAnAlteredBodyOrIdFailsTheStandardWebhooksSignature",
      "testAStandardWebhooksTimestampOutsideTheToleranceIsStale",
      "testTheChallengeIsS256OfTheVerifierAsRfc7636AppendixB",
      "testTheCodeExchangeSendsCobrosJsonFormAndReadsTheTokenSet",
      "testAValidationErrorCarriesCodeMessageIdAndEachDetail",
      "testNoAnswerThenFoundByReferenceIdIsExistingWithoutASecondCreate",
    ]) {
      expect(ran, name).toContain(name);
    }
  }, 150_000);

  it("accepts both signatures the service makes, and refuses them forged, over an altered body or stale", async ({ skip }) => {
    if (!(await phpAvailable(skip))) return;
    const signing = generateSigningSecret();
    const cases = webhookSignatureCases(signing, generateSigningSecret());
    // Each case as a PSR-7 request through WebhookVerifier::verify(), which takes whichever scheme it carries.
    const script = `
      require 'autoload.php';
      $input = json_decode(stream_get_contents(STDIN), true);
      $verifier = new Cobro\\Sdk\\Webhook\\WebhookVerifier($input['secret']);
      $results = [];
      foreach ($input['cases'] as $name => $case) {
          $request = new GuzzleHttp\\Psr7\\ServerRequest('POST', 'https://integrator.example/webhooks', $case['headers'], $case['body']);
          try {
              $results[$name] = $verifier->verify($request)['referenceId'];
          } catch (Cobro\\Sdk\\Webhook\\WebhookVerificationException $error) {
              $results[$name] = $error->problem();
          }
      }
      echo json_encode($results);`;
    const { code, output } = await runInPhpSdk("php", ["-r", script], { input: JSON.stringify({ secret: signing.secret, cases }) });
    expect(code, output).toBe(0);
    expect(JSON.parse(output)).toEqual(SIGNATURE_VERDICTS);
  });

  it("shows in its README only code that the live-Sandbox example runs", () => {
    const readme = readFileSync(join(root, "sdks/php/README.md"), "utf8");
    const blocks = [...readme.matchAll(/```php\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const lines = (text: string) =>
      text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
    const examples = ["quickstart.php", "webhook-receiver.php"].map((file) => lines(readFileSync(join(root, "sdks/php/examples", file), "utf8")).join("\n"));
    for (const block of blocks) {
      // Contiguous in one example, indentation aside.
      expect(
        examples.some((example) => `\n${example}\n`.includes(`\n${lines(block).join("\n")}\n`)),
        block,
      ).toBe(true);
    }
  });
});
