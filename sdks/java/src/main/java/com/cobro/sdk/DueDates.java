package com.cobro.sdk;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The contract's due dates are strings of two forms, which the generated models keep as {@code String}: a
 * calendar day ({@code 2026-12-10}, due at the end of that day, Argentina time) or an instant with its offset
 * ({@code 2026-12-10T18:30:00-03:00}, a short-lived charge). These write and read them as {@link LocalDate} and
 * {@link OffsetDateTime}, never as a {@code Date} at UTC midnight (the classic off-by-one-day bug).
 */
public final class DueDates {
  /** Argentina's time zone, where the service's days begin and end. */
  public static final ZoneId ARGENTINA = ZoneId.of("America/Argentina/Buenos_Aires");

  private DueDates() {}

  /** A calendar day: {@code 2026-12-10}. */
  public static String of(LocalDate day) {
    return day.toString();
  }

  /** An instant with its offset, to the second: {@code 2026-12-10T18:30:00-03:00}. */
  public static String of(OffsetDateTime at) {
    return at.truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
  }

  /** Whether a due date of the contract is a calendar day (rather than an instant). */
  public static boolean isDay(String dueDate) {
    return dueDate.length() == 10;
  }

  /** The calendar day of a due date: the day itself, or an instant's day in Argentina. */
  public static LocalDate day(String dueDate) {
    if (isDay(dueDate)) return LocalDate.parse(dueDate);
    return instant(dueDate).atZoneSameInstant(ARGENTINA).toLocalDate();
  }

  /** The instant of a due date with a time (without an offset, the service reads it as -03:00). */
  public static OffsetDateTime instant(String dueDate) {
    if (isDay(dueDate)) throw new IllegalArgumentException(dueDate + " is a calendar day, not an instant: use day()");
    boolean hasOffset = dueDate.endsWith("Z") || dueDate.matches(".*[+-]\\d{2}:\\d{2}$");
    return OffsetDateTime.parse(hasOffset ? dueDate : dueDate + "-03:00");
  }
}
