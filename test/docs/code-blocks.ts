// The fenced code blocks of a Markdown document, so that tests can run what the documentation shows.
import { readFileSync } from "node:fs";

/** The bodies of the ```<language> blocks of a Markdown file, in order. */
export function codeBlocks(markdownFile: string, language: string): string[] {
  const markdown = readFileSync(markdownFile, "utf8");
  const blocks: string[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    if (match[1]!.trim() === language) blocks.push(match[2]!);
  }
  return blocks;
}
