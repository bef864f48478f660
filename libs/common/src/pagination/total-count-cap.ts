/**
 * Beyond this many matches a list does not count exactly unless asked (`include_total=true`):
 * counting a million rows costs a second, the first page of them under a millisecond.
 */
export const TOTAL_COUNT_CAP = 1000;
