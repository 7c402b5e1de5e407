// The backups' gauges' arithmetic (runtime/backup-gauges.ts): the newest backup of each type from
// `pgbackrest info --output=json`'s answer, and a WAL segment's number from its file name as the primary's
// position counts it. The sampler itself runs against a real cluster and repository in test/ha/point-in-time-recovery.test.ts.
import { describe, expect, it } from "vitest";
import { newestBackups, walSegmentNumber } from "../../runtime/backup-gauges.ts";

describe("newestBackups", () => {
  it("answers when the newest backup of each type finished, for the stanza asked", () => {
    const info = JSON.stringify([
      { name: "other", backup: [{ type: "full", timestamp: { start: 1, stop: 2_000_000_000 } }] },
      {
        name: "cobro",
        backup: [
          { type: "full", timestamp: { start: 1_700_000_000, stop: 1_700_000_100 } },
          { type: "incr", timestamp: { start: 1_700_086_400, stop: 1_700_086_430 } },
          { type: "full", timestamp: { start: 1_700_600_000, stop: 1_700_600_200 } },
          { type: "incr", timestamp: { start: 1_700_500_000, stop: 1_700_500_010 } },
        ],
      },
    ]);
    expect(newestBackups(info, "cobro")).toEqual(
      new Map([
        ["full", new Date(1_700_600_200_000)],
        ["incr", new Date(1_700_500_010_000)],
      ]),
    );
  });

  it("answers nothing for a stanza without backups or unknown to the repository", () => {
    expect(newestBackups(JSON.stringify([{ name: "cobro", backup: [] }]), "cobro").size).toBe(0);
    expect(newestBackups("[]", "cobro").size).toBe(0);
  });
});

describe("walSegmentNumber", () => {
  it("counts 256 segments of 16 MiB per log file, whatever the timeline", () => {
    expect(walSegmentNumber("000000010000000000000005", 16 * 1024 * 1024)).toBe(5);
    expect(walSegmentNumber("0000000300000002000000A0", 16 * 1024 * 1024)).toBe(2 * 256 + 0xa0);
    // A backup's label file names its segment first.
    expect(walSegmentNumber("000000010000000100000003.00000028.backup", 16 * 1024 * 1024)).toBe(256 + 3);
    expect(walSegmentNumber("000000010000000100000003", 64 * 1024 * 1024)).toBe(64 + 3);
  });
});
