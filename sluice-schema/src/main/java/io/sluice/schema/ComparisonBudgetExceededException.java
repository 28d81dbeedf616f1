package io.sluice.schema;

import java.time.Duration;

/**
 * A compatibility comparison that did not finish within its time budget. The registry answers it as an error rather
 * than keep a request thread busy on a pathological pair of schemas.
 */
public final class ComparisonBudgetExceededException extends RuntimeException {
  public ComparisonBudgetExceededException(Duration budget) {
    super("Compatibility check did not finish within its budget of " + budget.toMillis() + " ms");
  }
}
