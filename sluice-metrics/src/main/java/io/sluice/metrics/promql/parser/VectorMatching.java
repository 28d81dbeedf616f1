package io.sluice.metrics.promql.parser;

import java.util.List;

/**
 * How the two sides of a binary vector operation are matched: {@code on(...)} when {@code on} is true, else
 * {@code ignoring(...)}; {@code include} are the labels of {@code group_left(...)} / {@code group_right(...)}.
 */
public record VectorMatching(Cardinality card, List<String> labels, boolean on, List<String> include) {
  public enum Cardinality { ONE_TO_ONE, MANY_TO_ONE, ONE_TO_MANY, MANY_TO_MANY }

  public static VectorMatching defaultFor(BinaryOp op) {
    return new VectorMatching(op.isSetOperator() ? Cardinality.MANY_TO_MANY : Cardinality.ONE_TO_ONE, List.of(), false,
        List.of());
  }
}
