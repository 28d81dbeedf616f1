package io.sluice.metrics.promql.parser;

/** The four PromQL value types, named as Prometheus names them in errors and in the API's {@code resultType}. */
public enum ValueType {
  SCALAR("scalar", "scalar"),
  VECTOR("instant vector", "vector"),
  MATRIX("range vector", "matrix"),
  STRING("string", "string");

  private final String description;
  private final String apiName;

  ValueType(String description, String apiName) {
    this.description = description;
    this.apiName = apiName;
  }

  public String description() {
    return description;
  }

  public String apiName() {
    return apiName;
  }
}
