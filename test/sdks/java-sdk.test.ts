// The Java SDK (sdks/java): its JUnit 5 suite built and run by Maven (the verifier's refusals, PKCE and the
// token calls, the generated form operations' JDK-encoded bodies, the typed exceptions and the retry
// guidance, over loopback HTTP), and its quick start (examples/Quickstart.java) as the README's "Run the
// quick start" tells a reader to run it, against the whole service on a fresh database: the merchant linked
// through the sign-in screen's HTTP flow, the Sandbox's test tokens, a charge with two due dates and a
// surcharge read back and listed, a duplicate referenceId as a typed ConflictException, a simulated transfer,
// the delivered webhook verified with the SDK's verifier (and a tampered copy of it refused), the charge read
// back as total_payment and the webhook URL it registered deleted. One file, so that the build and the
// example never share target/ at once.
import { existsSync, readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { generateSigningSecret } from "../../domain/webhooks/signature.ts";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { failureLookingLines, readmeCommands } from "../helpers/readme-commands.ts";
import { JAVA_SDK_DIR, javaAvailable, maven, runInJavaSdk } from "../helpers/java.ts";
import { SIGNATURE_VERDICTS, webhookSignatureCases } from "../helpers/webhook-signature-cases.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const scratch = mkdtempSync(join(tmpdir(), "cobro-java-sdk-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("sdks/java", () => {
  it("builds with Maven and passes its JUnit suite, which covers the verifier's refusals, PKCE, the typed errors and the retry guidance", async ({ skip }) => {
    if (!(await javaAvailable(skip))) return;
    const { code, output } = await maven(["-q", "verify"], { timeoutMs: 600_000 });
    expect(code, output).toBe(0);

    const reports = join(JAVA_SDK_DIR, "target", "surefire-reports");
    const suites = readdirSync(reports).filter((file) => file.startsWith("TEST-") && file.endsWith(".xml"));
    let tests = 0;
    const problems = { failures: 0, errors: 0, skipped: 0 };
    const ran = new Set<string>();
    for (const file of suites) {
      const xml = readFileSync(join(reports, file), "utf8");
      const suite = /<testsuite [^>]*?tests="(\d+)" errors="(\d+)" skipped="(\d+)" failures="(\d+)"/.exec(xml) ?? [];
      tests += Number(suite[1] ?? 0);
      problems.errors += Number(suite[2] ?? 0);
      problems.skipped += Number(suite[3] ?? 0);
      problems.failures += Number(suite[4] ?? 0);
      for (const match of xml.matchAll(/<testcase name="(\w+)"/g)) ran.add(match[1]!);
    }
    expect(problems).toEqual({ failures: 0, errors: 0, skipped: 0 });
    // The suite as written: a test class that stops being run shows here.
    expect(tests).toBeGreaterThanOrEqual(48);
    for (const name of [
      "aServiceSignatureOfTheBodyIsAcceptedAndTheEventReturned",
      "aServiceSignatureMadeWithAnotherSecretIsRefused",
      "anAlteredBodyFailsTheServiceSignature",
      "aServiceSignatureOutsideTheToleranceIsStaleEitherWay",
      "aStandardWebhooksSignatureIsAcceptedAndKeyedWithTheDecodedSecret",
      "theStandardWebhooksSignatureIsTheSpecificationsTestVector",
      "anAlteredBodyOrIdFailsTheStandardWebhooksSignature",
      "aStandardWebhooksTimestampOutsideTheToleranceIsStale",
      "theChallengeIsS256OfTheVerifierAsRfc7636AppendixB",
      "theCodeExchangeSendsCobrosJsonFormAndReadsTheTokenSet",
      "aFormOperationSendsItsValuesPercentEncodedInUtf8WithTheFormContentType",
      "aValidationErrorCarriesCodeMessageIdAndEachDetail",
      "noAnswerThenFoundByReferenceIdIsExistingWithoutASecondCreate",
      "aRateLimitWithNoChargeIsThrownWithoutLooping",
      "aRetriedBulkRefusedBecauseEveryReferenceIdExistsWasCreatedEarlier",
    ]) {
      expect(ran, name).toContain(name);
    }
  }, 660_000);

  it("accepts both signatures the service makes, for a standard and a legacy secret, and refuses them forged, over an altered body or stale", async ({
    skip,
  }) => {
    if (!(await javaAvailable(skip))) return;
    if (!existsSync(join(JAVA_SDK_DIR, "target", "classpath.txt"))) {
      const build = await maven(["-q", "-DskipTests", "package"]);
      expect(build.code, build.output).toBe(0);
    }
    // Each case through WebhookVerifier.verify(rawBody, headers), which checks whichever scheme a request carries.
    const program = join(scratch, "VerifyCases.java");
    writeFileSync(
      program,
      `import com.cobro.sdk.webhook.WebhookVerificationException;
import com.cobro.sdk.webhook.WebhookVerifier;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
public class VerifyCases {
  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    var input = json.readTree(System.in);
    var results = json.createObjectNode();
    for (var signing : input) {
      var verifier = new WebhookVerifier(signing.get("secret").asText(), WebhookVerifier.Scheme.of(signing.get("scheme").asText()));
      signing.get("cases").fields().forEachRemaining(entry -> {
        var headers = new HashMap<String, List<String>>();
        entry.getValue().get("headers").fields().forEachRemaining(header -> headers.put(header.getKey(), List.of(header.getValue().asText())));
        String name = signing.get("scheme").asText() + "." + entry.getKey();
        try {
          results.put(name, verifier.verify(entry.getValue().get("body").asText(), headers).get("referenceId").asText());
        } catch (WebhookVerificationException refused) {
          results.put(name, refused.reason().name().toLowerCase());
        }
      });
    }
    System.out.println(results);
  }
}
`,
    );
    const legacy = { secret: "whsec_bGVnYWN5LXNpZ25pbmctc2VjcmV0LW9mLTIwMjY-_w", scheme: "legacy" as const };
    const input = [generateSigningSecret(), legacy].map((signing) => {
      const other = signing.scheme === "legacy" ? { ...legacy, secret: `${legacy.secret}x` } : generateSigningSecret();
      return { ...signing, cases: webhookSignatureCases(signing, other) };
    });
    const classPath = `target/classes:${readFileSync(join(JAVA_SDK_DIR, "target", "classpath.txt"), "utf8").trim()}`;
    const { code, output, stdout } = await runInJavaSdk("java", ["-cp", classPath, program], { input: JSON.stringify(input), timeoutMs: 60_000 });
    expect(code, output).toBe(0);
    const expected = (scheme: string) => Object.fromEntries(Object.entries(SIGNATURE_VERDICTS).map(([name, verdict]) => [`${scheme}.${name}`, verdict]));
    expect(JSON.parse(stdout)).toEqual({ ...expected("standard"), ...expected("legacy") });
  }, 120_000);

  it("is the package the contract versions: pom.xml's version, and the README's, is the OpenAPI info.version", () => {
    const pom = readFileSync(join(JAVA_SDK_DIR, "pom.xml"), "utf8");
    const contract = YAML.parse(readFileSync(join(JAVA_SDK_DIR, "../../generated/openapi/integration.yaml"), "utf8")).info.version;
    expect(/<artifactId>cobro-sdk<\/artifactId>\s*<version>([^<]+)<\/version>/.exec(pom)?.[1]).toBe(contract);
    // The README's dependency snippet names the same version.
    const readme = readFileSync(join(JAVA_SDK_DIR, "README.md"), "utf8");
    expect(
      [...readme.matchAll(/<artifactId>cobro-sdk<\/artifactId>\s*<version>([^<]+)<\/version>|com\.cobro:cobro-sdk:([\d.]+)/g)].map((m) => m[1] ?? m[2]),
    ).toEqual([contract, contract, contract]);
  });

  it("runs the quick start against a live Sandbox: links, charges, pays, verifies the webhook and refuses it tampered", async ({ skip }) => {
    if (!(await javaAvailable(skip))) return;
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    const sandboxFile = join(scratch, "sandbox.json");
    writeFileSync(sandboxFile, JSON.stringify(sandbox));

    // The README's commands, with this Sandbox's file where a reader's is; Maven through the offline-first helper.
    const commands = readmeCommands(readFileSync(join(JAVA_SDK_DIR, "README.md"), "utf8"), "Run the quick start");
    expect(commands).toEqual([
      "mvn -B -q -DskipTests package",
      'java -cp "target/classes:$(cat target/classpath.txt)" examples/Quickstart.java ../../.data/sandbox.json',
    ]);
    const build = await maven(["-q", "-DskipTests", "package"], { timeoutMs: 600_000 });
    expect(build.code, build.output).toBe(0);
    const { code, output, stdout } = await runInJavaSdk("sh", ["-e", "-c", commands[1]!.replace("../../.data/sandbox.json", sandboxFile)], {
      timeoutMs: 120_000,
    });

    expect(code, output).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(summary).toEqual({
      referenceId: expect.stringMatching(/^JAVA-EXAMPLE-/),
      state: "total_payment",
      listed: true,
      webhook: "verified",
      tampered: "signature_mismatch",
      assignedTo: `${summary.referenceId}-M`,
      assignedChargeState: "total_payment",
      returnState: "requested",
    });
    expect(output).toMatch(
      new RegExp(`unmatched transfer \\S+ \\(canceled\\) assigned to ${summary.referenceId}-M: 800\\.0 applied, the charge is total_payment`),
    );
    expect(output).toMatch(/unmatched transfer \S+ returned: 800\.0 to 0000003100000000000017, requested/);
    expect(failureLookingLines(output), output).toEqual([]);
    expect(output).toContain("merchant linked");
    expect(output).toMatch(/test tokens: the Sandbox's test merchant account is [0-9a-f-]{36}/);
    expect(output).toMatch(/charge JAVA-EXAMPLE-\w+ CREATED: pending, pay 1500.5 to CVU \d{22}, due \[\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\]/);
    expect(output).toMatch(/typed exceptions: the same referenceId again throws ConflictException ReferenceIdAlreadyExists\S* \(id \S+\), as expected/);
    expect(output).toMatch(/webhook \S+ verified \(X-Service-Signature and Standard Webhooks\): payment_request\.payment_received, stateType total_payment/);
    expect(output).toMatch(/is total_payment \(surcharge percentage 10.0 after the first due date\)/);
    expect(output).toMatch(/webhook URL http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro deleted/);

    // What the example says it did is what the service holds: the charge paid, the receiver's URL gone.
    const charge = await t.database.db
      .selectFrom("charges")
      .select("state")
      .where("reference_id", "=", summary.referenceId as string)
      .executeTakeFirst();
    expect(charge?.state).toBe("total_payment");
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 720_000);
});

describe("sdks/java/README.md", () => {
  it("shows in its Java blocks only code that the live-Sandbox example runs", () => {
    const readme = readFileSync(join(JAVA_SDK_DIR, "README.md"), "utf8");
    const example = readFileSync(join(JAVA_SDK_DIR, "examples", "Quickstart.java"), "utf8");
    const normalise = (text: string) => text.replace(/^[ ]+/gm, "").trim();
    const blocks = [...readme.matchAll(/```java\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const block of blocks) expect(normalise(example), `README block not in Quickstart.java:\n${block}`).toContain(normalise(block));
  });
});
