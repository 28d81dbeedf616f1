package io.sluice.gofmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Expected strings are Go's: strconv.FormatFloat and fmt.Sprintf on the same float64. */
class GoFloatTest {
  @Test
  void shortestWithoutExponentAsSampleValues() {
    assertEquals("1", GoFloat.format(1));
    assertEquals("0.1", GoFloat.format(0.1));
    assertEquals("0.0000001", GoFloat.format(1e-7));
    assertEquals("1000000000000000000000", GoFloat.format(1e21));
    assertEquals("-2.5", GoFloat.format(-2.5));
    assertEquals("123456789.123", GoFloat.format(123456789.123));
    assertEquals("NaN", GoFloat.format(Double.NaN));
    assertEquals("+Inf", GoFloat.format(Double.POSITIVE_INFINITY));
    assertEquals("-Inf", GoFloat.format(Double.NEGATIVE_INFINITY));
    assertEquals("-0", GoFloat.format(-0.0));
    assertEquals("0", GoFloat.format(0.0));
  }

  @Test
  void shortestEvenWhereJava17WritesMoreDigitsOrAFartherDecimal() {
    // Double.toString: 4.9E-324, 2.31845256772633248E17 (18 digits) and 3.1526711628916386E25 (not the nearest).
    assertEquals("5e-324", GoFloat.formatE(Double.MIN_VALUE));
    assertEquals("0." + "0".repeat(323) + "5", GoFloat.format(Double.MIN_VALUE));
    assertEquals("231845256772633250", GoFloat.format(2.31845256772633248E17));
    assertEquals("6.84798354874497e+18", GoFloat.formatE(6.8479835487449702E18));
    assertEquals("3.1526711628916387e+25", GoFloat.formatE(3.1526711628916386E25));
    Random r = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      double v = Double.longBitsToDouble(r.nextLong() & 0x7fefffffffffffffL);
      assertEquals(v, Double.parseDouble(GoFloat.formatE(v)), GoFloat.formatE(v));
    }
  }

  @Test
  void parsesAsStrconvParseFloat() {
    assertEquals(10, GoFloat.parse("1_0"));
    assertEquals(3, GoFloat.parse("0x1.8p1"));
    assertEquals(0.5, GoFloat.parse("+.5"));
    assertEquals(5, GoFloat.parse("5."));
    assertEquals(-1e5, GoFloat.parse("-1E+5"));
    assertEquals(0, GoFloat.parse("1e-400"));
    assertEquals(Double.POSITIVE_INFINITY, GoFloat.parse("+Inf"));
    assertEquals(Double.NEGATIVE_INFINITY, GoFloat.parse("-infinity"));
    assertEquals(Double.NaN, GoFloat.parse("NaN"));
    for (String bad : new String[] {"0x1F", " 1", "1 ", "1e400", "+nan", "infin", "1_", "_1", "1__0", "1d", "", ".",
        "1e", "0x1p"}) {
      assertThrows(NumberFormatException.class, () -> GoFloat.parse(bad), bad);
    }
  }

  @Test
  void shortestWithExponentAsAlertValues() {
    assertEquals("1e+00", GoFloat.formatE(1));
    assertEquals("1.5e+03", GoFloat.formatE(1500));
    assertEquals("-2.5e-05", GoFloat.formatE(-0.000025));
    assertEquals("0e+00", GoFloat.formatE(0.0));
    assertEquals("-0e+00", GoFloat.formatE(-0.0));
    assertEquals("1.2345678901234567e+19", GoFloat.formatE(12345678901234567890.0));
  }

  @Test
  void printfVerbs() {
    // %v switches to an exponent from 1e+06 on, and below 1e-04.
    assertEquals("100000", GoFloat.g(100000, -1));
    assertEquals("1e+06", GoFloat.g(1e6, -1));
    assertEquals("0.0001", GoFloat.g(0.0001, -1));
    assertEquals("1e-05", GoFloat.g(0.00001, -1));
    assertEquals("1.235e+04", GoFloat.g(12345.678, 4));
    assertEquals("12.35", GoFloat.g(12.345678, 4));
    // The exact binary value of 2.675 is below 2.675, and 0.125 rounds half to even.
    assertEquals("2.67", GoFloat.f(2.675, 2));
    assertEquals("0.12", GoFloat.f(0.125, 2));
    assertEquals("-0.00", GoFloat.f(-0.0, 2));
    assertEquals("1.500000e+00", GoFloat.e(1.5, 6));
    assertEquals("0.000e+00", GoFloat.e(0.0, 3));
    assertEquals("+Inf", GoFloat.f(Double.POSITIVE_INFINITY, 2));
  }
}
