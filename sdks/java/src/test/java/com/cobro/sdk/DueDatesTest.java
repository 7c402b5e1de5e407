package com.cobro.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DueDatesTest {
  @Test
  void aDayIsWrittenAsTheContractsCalendarDay() {
    assertEquals("2026-12-10", DueDates.of(LocalDate.of(2026, 12, 10)));
    assertEquals(LocalDate.of(2026, 12, 10), DueDates.day("2026-12-10"));
  }

  @Test
  void anInstantKeepsItsOffsetAndItsDayIsArgentinas() {
    OffsetDateTime at = OffsetDateTime.of(2026, 12, 11, 1, 30, 15, 999, ZoneOffset.UTC);
    assertEquals("2026-12-11T01:30:15Z", DueDates.of(at));
    // 01:30 UTC on the 11th is 22:30 on the 10th in Argentina.
    assertEquals(LocalDate.of(2026, 12, 10), DueDates.day(DueDates.of(at)));
    // Without an offset the service reads -03:00.
    assertEquals(OffsetDateTime.parse("2026-12-10T18:30-03:00"), DueDates.instant("2026-12-10T18:30"));
    assertThrows(IllegalArgumentException.class, () -> DueDates.instant("2026-12-10"));
  }
}
