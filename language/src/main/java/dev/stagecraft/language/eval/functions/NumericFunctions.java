package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.integer;
import static dev.stagecraft.language.eval.functions.Args.num;
import static dev.stagecraft.language.eval.functions.Args.str;

import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;

/** Terraform's numeric functions. */
final class NumericFunctions {
  private NumericFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("min", 1, -1, (a, c) -> minMax(a, true)))
        .with(FunctionDef.of("max", 1, -1, (a, c) -> minMax(a, false)))
        .with(FunctionDef.of("abs", 1, 1, (a, c) -> Value.number(num(a, 0).abs())))
        .with(
            FunctionDef.of(
                "ceil", 1, 1, (a, c) -> Value.number(num(a, 0).setScale(0, RoundingMode.CEILING))))
        .with(
            FunctionDef.of(
                "floor", 1, 1, (a, c) -> Value.number(num(a, 0).setScale(0, RoundingMode.FLOOR))))
        .with(FunctionDef.of("parseint", 2, 2, NumericFunctions::parseint))
        .with(FunctionDef.of("signum", 1, 1, (a, c) -> Value.number(num(a, 0).signum())))
        .with(FunctionDef.of("log", 2, 2, NumericFunctions::log))
        .with(FunctionDef.of("pow", 2, 2, NumericFunctions::pow));
  }

  private static Value minMax(List<Value> a, boolean min) {
    BigDecimal best = num(a, 0);
    for (int i = 1; i < a.size(); i++) {
      BigDecimal n = num(a, i);
      if (min ? n.compareTo(best) < 0 : n.compareTo(best) > 0) {
        best = n;
      }
    }
    return Value.number(best);
  }

  private static Value parseint(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    int base = integer(a, 1);
    if (base < 2 || base > 62) {
      throw new FunctionException(1, "the base must be between 2 and 62, inclusive.");
    }
    String digits = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
    if (digits.isEmpty()) {
      throw new FunctionException(0, "cannot parse \"" + s + "\" as a base " + base + " integer.");
    }
    BigInteger n = BigInteger.ZERO;
    BigInteger b = BigInteger.valueOf(base);
    for (char ch : digits.toCharArray()) {
      int d;
      if (ch >= '0' && ch <= '9') {
        d = ch - '0';
      } else if (ch >= 'a' && ch <= 'z') {
        d = ch - 'a' + 10;
      } else if (ch >= 'A' && ch <= 'Z') {
        d = base <= 36 ? ch - 'A' + 10 : ch - 'A' + 36;
      } else {
        d = 99;
      }
      if (d >= base) {
        throw new FunctionException(
            0, "cannot parse \"" + s + "\" as a base " + base + " integer.");
      }
      n = n.multiply(b).add(BigInteger.valueOf(d));
    }
    return Value.number(new BigDecimal(s.startsWith("-") ? n.negate() : n));
  }

  private static Value number(double d, String what) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new FunctionException(-1, what + " is not a finite number.");
    }
    return Value.number(new BigDecimal(d, MathContext.DECIMAL64).stripTrailingZeros());
  }

  private static Value log(List<Value> a, EvalContext c) {
    double x = num(a, 0).doubleValue();
    double b = num(a, 1).doubleValue();
    return number(Math.log(x) / Math.log(b), "the result of log");
  }

  private static Value pow(List<Value> a, EvalContext c) {
    BigDecimal x = num(a, 0);
    BigDecimal y = num(a, 1);
    if (y.signum() >= 0
        && y.stripTrailingZeros().scale() <= 0
        && y.compareTo(BigDecimal.valueOf(999)) <= 0) {
      return Value.number(x.pow(y.intValue()));
    }
    return number(Math.pow(x.doubleValue(), y.doubleValue()), "the result of pow");
  }
}
