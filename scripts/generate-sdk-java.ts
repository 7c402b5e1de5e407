// The Java SDK's generated clients: generated/openapi/{api}.yaml → sdks/java/src/main/java/com/cobro/sdk/generated/
// {integration,auth,admin}/ with openapi-generator's `java` generator and its `native` library (the JDK's
// java.net.http client, Jackson for JSON), from the same pinned JAR as the other SDKs (scripts/generate-sdk.ts
// fetches it from Maven Central with mvn; openapitools.json pins it). Also writes sdks/java/pom.xml, whose
// version is the contract's (`info.version`) and which pins every dependency and plugin, and finishes the
// clients (finishClient: every call throws the SDK's typed exceptions). Called by scripts/generate.ts
// (`npm run generate`, and `--check`, which generates into a scratch folder and compares).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiName } from "./normalize-openapi.ts";
import { contractVersion, ensureGeneratorJar, generateClientsIn, generatedReadme, type Json, replacerFor } from "./generate-sdk.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const replaceAll = replacerFor("java (native)");

/** The Maven project (hand-written helpers beside the generated package in src/main/java/com/cobro/sdk/). */
export const JAVA_SDK_DIR = join(root, "sdks", "java");

/** Where the generated package lives inside JAVA_SDK_DIR. */
export const GENERATED_PACKAGE_DIR = "src/main/java/com/cobro/sdk/generated";

/** What the generator writes inside JAVA_SDK_DIR; the rest of the folder is hand-written. */
export const isJavaGeneratedFile = (file: string): boolean => file.startsWith(`${GENERATED_PACKAGE_DIR}/`) || file === "pom.xml";

/**
 * Options of the `java` generator (`java -jar … config-help -g java`):
 * - `library: native`: the JDK's own HTTP client (java.net.http, Java 11+) and Jackson; the other libraries
 *   bring an HTTP runtime of their own (OkHttp, Jersey, Apache HttpClient, Feign, RestTemplate, …) that an
 *   integrator's application would have to carry and keep in step with its own.
 * - `dateLibrary: java8`: `format: date` is a `LocalDate` and `format: date-time` an `OffsetDateTime`.
 * - `openApiNullable: false`: no jackson-databind-nullable; the contract's optional fields are plain nulls.
 * - `useJakartaEe`: the nullness annotations are jakarta.annotation's (compile-time only).
 * - `hideGenerationTimestamp`: the output depends on the input only, so `generate:check` can compare it.
 */
function generatorOptions(api: ApiName, version: string): Record<string, string | boolean> {
  const base = `com.cobro.sdk.generated.${api}`;
  return {
    library: "native",
    dateLibrary: "java8",
    openApiNullable: false,
    useJakartaEe: true,
    hideGenerationTimestamp: true,
    invokerPackage: base,
    apiPackage: `${base}.api`,
    modelPackage: `${base}.model`,
    groupId: "com.cobro",
    artifactId: "cobro-sdk",
    artifactVersion: version,
  };
}

/** Pinned versions of what the package needs (Maven Central); the generator's pom.xml is not used. */
export const JAVA_VERSIONS = {
  jackson: "2.22.4",
  jakartaAnnotation: "2.1.1",
  junit: "5.14.4",
  plugins: {
    "maven-clean-plugin": "3.5.0",
    "maven-resources-plugin": "3.3.1",
    "maven-compiler-plugin": "3.14.1",
    "maven-surefire-plugin": "3.5.5",
    "maven-jar-plugin": "3.4.2",
    "maven-install-plugin": "3.1.4",
    "maven-deploy-plugin": "3.1.4",
    "maven-site-plugin": "3.21.0",
    "maven-dependency-plugin": "3.8.1",
    "maven-enforcer-plugin": "3.6.2",
  },
} as const;

/** Generates the three clients into `outDir/src/main/java/com/cobro/sdk/generated/` and writes `outDir/pom.xml`. */
export function generateJavaSdkInto(outDir: string, documents: Record<ApiName, Json>): void {
  ensureGeneratorJar();
  const version = contractVersion(documents);
  const scratch = mkdtempSync(join(tmpdir(), "cobro-sdk-java-"));
  try {
    generateClientsIn(scratch, documents, "java", (api) => generatorOptions(api, version), "the Java SDK");
    const generatedDir = join(outDir, GENERATED_PACKAGE_DIR);
    rmSync(generatedDir, { recursive: true, force: true });
    mkdirSync(generatedDir, { recursive: true });
    // Only the sources: the generator's pom.xml, Gradle and sbt files, CI and Android manifest describe a
    // project per API, which this one is not.
    for (const api of Object.keys(documents) as ApiName[]) {
      const sources = join(scratch, "out", api, GENERATED_PACKAGE_DIR, api);
      cpSync(sources, join(generatedDir, api), { recursive: true });
      finishClient(join(generatedDir, api), api);
    }
    writeFileSync(
      join(generatedDir, "README.md"),
      generatedReadme("`java` with the `native` library", [
        "`generated/openapi/{integration,auth,admin}.yaml`, one package per API (`com.cobro.sdk.generated.integration`,",
        "`.auth`, `.admin`). Do not edit: change the contract in `spec/` and regenerate. `scripts/generate-sdk-java.ts`",
        "says how.",
      ]),
    );
    writeFileSync(join(outDir, "pom.xml"), pomXml(version));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * One change to what the generator writes, so that a call fails the way the SDK documents: a non-2xx answer
 * was returned as the package's own ApiException (one class per API, with the status and the body as text),
 * and no answer (connection refused, timeout) as the same ApiException around the IOException. Each call now
 * throws the SDK's typed exception instead (com.cobro.sdk.errors: `NotFoundException`, `ConflictException`,
 * …, with the body's code, message and id; `NoAnswerException` when no answer came back). They are unchecked,
 * so the generated `throws ApiException` signatures stay as they are; an ApiException is still thrown for
 * what is not the service's answer (a missing required argument, a body that is not the contract's JSON).
 */
function finishClient(dir: string, api: ApiName): void {
  for (const file of readdirSync(join(dir, "api"))) {
    const path = join(dir, "api", file);
    let text = readFileSync(path, "utf8");
    text = replaceAll(
      text,
      /return new ApiException\(response\.statusCode\(\), message, response\.headers\(\), body\);/g,
      "throw com.cobro.sdk.errors.CobroApiException.of(response.statusCode(), body, response.headers().map(), new ApiException(response.statusCode(), message, response.headers(), body));",
      `ApiException of a non-2xx answer in ${api}/api/${file}`,
    );
    text = replaceAll(
      text,
      // The catch of the call itself (the one followed by InterruptedException's), not the file download's.
      /\} catch \(IOException e\) \{\n(\s+)throw new ApiException\(e\);(?=\n\s+\}\n\s+catch \(InterruptedException e\))/g,
      "} catch (IOException e) {\n$1if (!(e instanceof com.fasterxml.jackson.core.JacksonException)) throw new com.cobro.sdk.errors.NoAnswerException(e);\n$1throw new ApiException(e);",
      `IOException of a call in ${api}/api/${file}`,
    );
    if (text.includes("import org.apache.http.")) text = encodeFormsWithTheJdk(text, `${api}/api/${file}`);
    writeFileSync(path, text);
  }
}

/**
 * The native library writes a form-encoded body (the Auth API's standard OAuth forms and its HTML pages' forms)
 * with Apache HttpComponents' UrlEncodedFormEntity, the one dependency outside the JDK and Jackson it would
 * bring; the same body is written here with the JDK (java.net.URLEncoder, through the generated
 * ApiClient.urlEncode), so that the package needs no HTTP library of its own.
 */
function encodeFormsWithTheJdk(text: string, what: string): string {
  text = replaceAll(text, /^import org\.apache\.http\.[\w.]+;\n/gm, "", `Apache HttpComponents imports in ${what}`);
  // Some API classes import HttpComponents without sending a form.
  if (!text.includes("new UrlEncodedFormEntity(")) return text;
  text = replaceAll(
    text,
    /List<NameValuePair> formValues = new ArrayList<>\(\);/g,
    'java.util.StringJoiner formValues = new java.util.StringJoiner("&");',
    `form values in ${what}`,
  );
  text = replaceAll(
    text,
    /formValues\.add\(new BasicNameValuePair\(("[^"]+"), (\w+)\.toString\(\)\)\);/g,
    'formValues.add(ApiClient.urlEncode($1) + "=" + ApiClient.urlEncode($2.toString()));',
    `form value in ${what}`,
  );
  text = replaceAll(
    text,
    /HttpEntity entity = new UrlEncodedFormEntity\(formValues, java\.nio\.charset\.StandardCharsets\.UTF_8\);\n\s+ByteArrayOutputStream formOutputStream = new ByteArrayOutputStream\(\);\n\s+try \{\n\s+entity\.writeTo\(formOutputStream\);\n\s+\} catch \(IOException e\) \{\n\s+throw new RuntimeException\(e\);\n\s+\}\n(\s+)byte\[\] formBytes = formOutputStream\.toByteArray\(\);/g,
    "byte[] formBytes = formValues.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);",
    `form entity in ${what}`,
  );
  return replaceAll(
    text,
    /\.header\("Content-Type", entity\.getContentType\(\)\.getValue\(\)\)/g,
    '.header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")',
    `form content type in ${what}`,
  );
}

function pomXml(version: string): string {
  const plugins = Object.entries(JAVA_VERSIONS.plugins)
    .map(
      ([artifactId, pluginVersion]) =>
        `        <plugin>\n          <groupId>org.apache.maven.plugins</groupId>\n          <artifactId>${artifactId}</artifactId>\n          <version>${pluginVersion}</version>\n        </plugin>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by \`npm run generate\` (scripts/generate-sdk-java.ts): the version is the contract's info.version,
     and every dependency and plugin is pinned. Do not edit: change the script and regenerate. -->
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.cobro</groupId>
  <artifactId>cobro-sdk</artifactId>
  <version>${version}</version>
  <packaging>jar</packaging>
  <name>Cobro SDK</name>
  <description>Java SDK for Cobro's Integration, Auth and Admin APIs: generated java.net.http clients, OAuth with PKCE, webhook verification, retry helpers and typed errors.</description>

  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <project.reporting.outputEncoding>UTF-8</project.reporting.outputEncoding>
  </properties>

  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.fasterxml.jackson</groupId>
        <artifactId>jackson-bom</artifactId>
        <version>${JAVA_VERSIONS.jackson}</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>

  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-core</artifactId>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-annotations</artifactId>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.datatype</groupId>
      <artifactId>jackson-datatype-jsr310</artifactId>
    </dependency>
    <!-- The generated code's @Nonnull and @Nullable: needed to compile, not at run time. -->
    <dependency>
      <groupId>jakarta.annotation</groupId>
      <artifactId>jakarta.annotation-api</artifactId>
      <version>${JAVA_VERSIONS.jakartaAnnotation}</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>${JAVA_VERSIONS.junit}</version>
      <scope>test</scope>
    </dependency>
  </dependencies>

  <build>
    <pluginManagement>
      <plugins>
${plugins}
      </plugins>
    </pluginManagement>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-enforcer-plugin</artifactId>
        <executions>
          <execution>
            <id>require-java-17</id>
            <goals>
              <goal>enforce</goal>
            </goals>
            <configuration>
              <rules>
                <requireJavaVersion>
                  <version>[17,)</version>
                </requireJavaVersion>
              </rules>
            </configuration>
          </execution>
        </executions>
      </plugin>
      <!-- The runtime class path, for running examples/Quickstart.java with the JDK's source launcher. -->
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <executions>
          <execution>
            <id>class-path</id>
            <phase>package</phase>
            <goals>
              <goal>build-classpath</goal>
            </goals>
            <configuration>
              <includeScope>runtime</includeScope>
              <outputFile>\${project.build.directory}/classpath.txt</outputFile>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
`;
}
