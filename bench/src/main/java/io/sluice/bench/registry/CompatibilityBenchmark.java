package io.sluice.bench.registry;

import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaFormats;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaType;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Compatibility check time per pair of schemas, per format (a plain runner; numbers go to stdout). Each pair is a
 * realistic 20-field record/message/object and its next version with one field added, checked in both directions
 * (what FULL asks), straight through the format's provider so no cache answers. Avro (Apache Avro's own
 * reader/writer check behind the registry's fast path) is the baseline the other two are measured against. Last, the
 * pathological JSON Schema: a recursive {@code oneOf} of 20 object branches, each holding the next node, against a
 * version that relaxes every branch (target: under 100 ms).
 *
 * <p>Run: {@code bench/run io.sluice.bench.registry.CompatibilityBenchmark [iterations]}.
 */
public final class CompatibilityBenchmark {
  private static final Map<SchemaType, SchemaProvider> PROVIDERS = SchemaFormats.all();

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    double avro = perPair(SchemaType.AVRO, avro(20, false), avro(20, true), iterations);
    double proto = perPair(SchemaType.PROTOBUF, proto(20, false), proto(20, true), iterations);
    double json = perPair(SchemaType.JSON, json(20, false), json(20, true), iterations);
    System.out.printf("AVRO      %8.1f us per pair (both directions)%n", avro);
    System.out.printf("PROTOBUF  %8.1f us per pair, %.2fx Avro's time%n", proto, proto / avro);
    System.out.printf("JSON      %8.1f us per pair, %.2fx Avro's time%n", json, json / avro);
    double worst = perPair(SchemaType.JSON, recursiveOneOf(20, 10), recursiveOneOf(20, 20), 50);
    System.out.printf("JSON recursive oneOf of 20 branches: %.2f ms per pair (target < 100 ms)%n", worst / 1000);
  }

  /** Median microseconds to check {@code a} against {@code b} in both directions, after a warm-up. */
  static double perPair(SchemaType type, String a, String b, int iterations) throws Exception {
    SchemaProvider p = PROVIDERS.get(type);
    ParsedSchema older = p.parse(a, List.of(), List.of());
    ParsedSchema newer = p.parse(b, List.of(), List.of());
    long[] samples = new long[iterations];
    for (int round = 0; round < 2; round++) { // the first round warms the JIT up
      for (int i = 0; i < iterations; i++) {
        long start = System.nanoTime();
        p.readIncompatibilities(newer, older, true, CompatibilityPolicy.STRICT);
        p.readIncompatibilities(older, newer, false, CompatibilityPolicy.STRICT);
        samples[i] = System.nanoTime() - start;
      }
    }
    Arrays.sort(samples);
    return samples[iterations / 2] / 1000.0;
  }

  static String avro(int fields, boolean extra) {
    StringBuilder b = new StringBuilder("{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":[");
    for (int i = 0; i < fields; i++) {
      b.append(i == 0 ? "" : ",").append("{\"name\":\"f").append(i).append("\",\"type\":")
          .append(i % 3 == 0 ? "\"string\"" : i % 3 == 1 ? "\"long\"" : "[\"null\",\"double\"],\"default\":null")
          .append("}");
    }
    if (extra) {
      b.append(",{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}");
    }
    return b.append("]}").toString();
  }

  static String proto(int fields, boolean extra) {
    StringBuilder b = new StringBuilder("syntax = \"proto3\";\npackage shop;\nmessage Order {\n");
    for (int i = 0; i < fields; i++) {
      b.append("  ").append(i % 3 == 0 ? "string" : i % 3 == 1 ? "int64" : "Money").append(" f").append(i)
          .append(" = ").append(i + 1).append(";\n");
    }
    if (extra) {
      b.append("  string note = ").append(fields + 1).append(";\n");
    }
    return b.append("}\nmessage Money {\n  int64 units = 1;\n  int32 nanos = 2;\n  string currency = 3;\n}\n")
        .toString();
  }

  static String json(int fields, boolean extra) {
    StringBuilder b = new StringBuilder("{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{");
    for (int i = 0; i < fields; i++) {
      b.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":")
          .append(i % 3 == 0 ? "{\"type\":\"string\",\"maxLength\":64}" : i % 3 == 1 ? "{\"type\":\"integer\"}"
              : "{\"type\":[\"number\",\"null\"]}");
    }
    if (extra) {
      b.append(",\"note\":{\"type\":\"string\"}");
    }
    return b.append("},\"required\":[\"f0\",\"f1\"]}").toString();
  }

  /** A node that is one of {@code branches} object shapes, each holding the next node. */
  static String recursiveOneOf(int branches, int maxLength) {
    StringBuilder b = new StringBuilder("{\"$ref\":\"#/definitions/node\",\"definitions\":{\"node\":{\"oneOf\":[");
    for (int i = 0; i < branches; i++) {
      b.append(i == 0 ? "" : ",").append("{\"type\":\"object\",\"properties\":{\"k").append(i)
          .append("\":{\"type\":\"string\",\"maxLength\":").append(maxLength).append("},")
          .append("\"next\":{\"$ref\":\"#/definitions/node\"}},\"required\":[\"k").append(i).append("\"]}");
    }
    return b.append("]}}}").toString();
  }
}
