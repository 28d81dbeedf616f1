package io.sluice.metrics.promql;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.ValueType;
import java.util.List;

/** A query's result, as the API renders it; timestamps in milliseconds. */
public sealed interface Value {
  ValueType type();

  record Scalar(long t, double v) implements Value {
    public ValueType type() {
      return ValueType.SCALAR;
    }
  }

  record StringValue(long t, String v) implements Value {
    public ValueType type() {
      return ValueType.STRING;
    }
  }

  /** An instant vector evaluated at {@code t}. */
  record Vector(long t, List<Sample> samples) implements Value {
    public ValueType type() {
      return ValueType.VECTOR;
    }
  }

  record Matrix(List<Series> series) implements Value {
    public ValueType type() {
      return ValueType.MATRIX;
    }
  }

  /** One element of an instant vector; {@code t} is the sample's own time where that matters (timestamp()). */
  record Sample(Labels labels, long t, double v) {}

  record Series(Labels labels, long[] ts, double[] vs) {}
}
