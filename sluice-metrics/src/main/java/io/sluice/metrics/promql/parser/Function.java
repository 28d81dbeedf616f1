package io.sluice.metrics.promql.parser;

import static io.sluice.metrics.promql.parser.ValueType.MATRIX;
import static io.sluice.metrics.promql.parser.ValueType.SCALAR;
import static io.sluice.metrics.promql.parser.ValueType.STRING;
import static io.sluice.metrics.promql.parser.ValueType.VECTOR;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A PromQL function's signature. {@code variadic}: 0 means exactly the listed arguments, n &gt; 0 means up to n of the
 * trailing ones may be left out, -1 means the last one may repeat. The evaluation of each lives in the engine's one
 * table.
 */
public record Function(String name, List<ValueType> argTypes, int variadic, ValueType returnType) {

  private static final Map<String, Function> ALL = new HashMap<>();

  static {
    for (String n : List.of("rate", "irate", "increase", "delta", "idelta", "deriv", "changes", "resets",
        "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time",
        "stddev_over_time", "stdvar_over_time", "absent_over_time", "present_over_time")) {
      def(n, List.of(MATRIX), 0, VECTOR);
    }
    for (String n : List.of("abs", "ceil", "floor", "exp", "sqrt", "ln", "log2", "log10", "sgn", "absent", "sort",
        "sort_desc", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "deg", "rad")) {
      def(n, List.of(VECTOR), 0, VECTOR);
    }
    // Without an argument, the calendar functions read the evaluation time.
    for (String n : List.of("year", "month", "day_of_month", "day_of_year", "day_of_week", "days_in_month", "hour",
        "minute")) {
      def(n, List.of(VECTOR), 1, VECTOR);
    }
    def("pi", List.of(), 0, SCALAR);
    def("holt_winters", List.of(MATRIX, SCALAR, SCALAR), 0, VECTOR);
    def("quantile_over_time", List.of(SCALAR, MATRIX), 0, VECTOR);
    def("predict_linear", List.of(MATRIX, SCALAR), 0, VECTOR);
    def("histogram_quantile", List.of(SCALAR, VECTOR), 0, VECTOR);
    def("clamp", List.of(VECTOR, SCALAR, SCALAR), 0, VECTOR);
    def("clamp_min", List.of(VECTOR, SCALAR), 0, VECTOR);
    def("clamp_max", List.of(VECTOR, SCALAR), 0, VECTOR);
    def("round", List.of(VECTOR, SCALAR), 1, VECTOR);
    def("time", List.of(), 0, SCALAR);
    def("timestamp", List.of(VECTOR), 0, VECTOR);
    def("vector", List.of(SCALAR), 0, VECTOR);
    def("scalar", List.of(VECTOR), 0, SCALAR);
    def("label_replace", List.of(VECTOR, STRING, STRING, STRING, STRING), 0, VECTOR);
    def("label_join", List.of(VECTOR, STRING, STRING, STRING), -1, VECTOR);
  }

  /**
   * Functions of Prometheus 2.42 that Sluice refuses by name: they read native histograms, which Sluice's store does
   * not hold.
   */
  private static final List<String> NATIVE_HISTOGRAM_FUNCTIONS = List.of("histogram_count", "histogram_sum",
      "histogram_fraction");

  private static void def(String name, List<ValueType> args, int variadic, ValueType ret) {
    ALL.put(name, new Function(name, args, variadic, ret));
  }

  public static Function byName(String name) {
    return ALL.get(name);
  }

  /** Why a function Prometheus knows is refused, or null when Prometheus does not know it either. */
  public static String whyUnsupported(String name) {
    return NATIVE_HISTOGRAM_FUNCTIONS.contains(name)
        ? "function \"" + name + "\" is not supported: it reads native histograms, which Sluice does not store"
        : null;
  }
}
