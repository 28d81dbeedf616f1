package io.sluice.metrics.promql.parser;

/** A query that does not parse or type-check; the API answers it with {@code bad_data}. */
public final class ParseException extends RuntimeException {
  public ParseException(String message) {
    super(message);
  }

  static ParseException at(String input, int pos, String message) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < Math.min(pos, input.length()); i++) {
      if (input.charAt(i) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new ParseException(line + ":" + col + ": parse error: " + message);
  }
}
