package io.sluice.metrics.promql.parser;

import java.util.Locale;

/** Aggregation operators; some take a parameter before the vector. */
public enum AggregateOp {
  SUM, AVG, MIN, MAX, COUNT, GROUP, STDDEV, STDVAR,
  COUNT_VALUES(ValueType.STRING), TOPK(ValueType.SCALAR), BOTTOMK(ValueType.SCALAR), QUANTILE(ValueType.SCALAR);

  private final ValueType paramType;

  AggregateOp() {
    this(null);
  }

  AggregateOp(ValueType paramType) {
    this.paramType = paramType;
  }

  /** The type of the leading parameter, or null when there is none. */
  public ValueType paramType() {
    return paramType;
  }

  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }

  static AggregateOp byKeyword(String s) {
    for (AggregateOp op : values()) {
      if (op.keyword().equals(s.toLowerCase(Locale.ROOT))) {
        return op;
      }
    }
    return null;
  }
}
