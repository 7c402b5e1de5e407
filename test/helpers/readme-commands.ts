// The commands a README tells its reader to run, read from the README itself, so that a test runs exactly
// what the reader is told to; and what a run's output must not hold, so that a reader does not take a
// deliberate step for a failure.

/** The lines of the first ```sh block under the heading `## {heading}` (comments and blank lines left out). */
export function readmeCommands(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`the README has no "## ${heading}" section`);
  const section = readme.slice(start + 1).split(/\n## /)[0]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`"## ${heading}" has no sh block`);
  return block[1]!
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Words that read as something gone wrong. */
const FAILURE_LOOKING = /\b(not found|no such|fail(s|ed|ure)?|errors?|refused|denied|cannot|could not|traceback|warning)\b/i;

/** The output's lines that read like a failure. */
export function failureLookingLines(output: string): string[] {
  return output.split("\n").filter((line) => FAILURE_LOOKING.test(line));
}
