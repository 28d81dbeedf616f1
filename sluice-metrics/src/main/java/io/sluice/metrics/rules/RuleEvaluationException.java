package io.sluice.metrics.rules;

/** A rule whose evaluation failed; the rule's health becomes "err" with this message. */
public final class RuleEvaluationException extends RuntimeException {
  public RuleEvaluationException(String message) {
    super(message);
  }
}
