package io.sluice.http;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every test of the build runs under a default timeout (set once, in the parent pom's surefire and failsafe
 * configuration), so a hung test fails instead of holding the run until CI kills it with no report.
 */
@ExtendWith(TestRunLimitsTest.Configuration.class)
class TestRunLimitsTest {

  @Test
  void everyTestHasADefaultTimeoutOfAtMostTenMinutes(Optional<String> defaultTimeout) {
    assertTrue(defaultTimeout.isPresent(), "junit.jupiter.execution.timeout.default is not set for this build");
    String value = defaultTimeout.get().trim();
    assertTrue(value.matches("([1-9]|10) ?m|[1-9][0-9]{0,2} ?s"), "a default timeout of at most 10 minutes: " + value);
  }

  /** Hands the test the configuration parameter as the JUnit engine sees it. */
  static final class Configuration implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == Optional.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context.getConfigurationParameter("junit.jupiter.execution.timeout.default");
    }
  }
}
