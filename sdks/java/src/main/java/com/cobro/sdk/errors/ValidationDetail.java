package com.cobro.sdk.errors;

import java.util.List;

/**
 * One field that failed validation, as a 400 {@code ValidationError} lists it in {@code validationDetails}.
 *
 * @param field the field's JSON path, dot-separated ({@code customer.email}, {@code dueDates[1]}); {@code body}
 *     for the whole body
 * @param message what is wrong with it (English, for a developer's log: decide by {@code rule})
 * @param rule the rule that failed ({@code required}, {@code maxLength}, …), or null
 * @param limit the rule's limit, or null
 * @param format the expected format, or null
 * @param fields the fields a rule across fields names, or an empty list
 */
public record ValidationDetail(String field, String message, String rule, Double limit, String format, List<String> fields) {}
