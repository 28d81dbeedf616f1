package io.sluice.metrics.promql;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PromqlScriptTest {
  @ParameterizedTest
  @ValueSource(strings = {"selectors.test", "functions.test", "operators.test"})
  void script(String name) throws Exception {
    ScriptRunner.runResource(name);
  }
}
