package dev.stagecraft.language.eval.functions;

import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What the functions share: reading an argument as a string, number, list or map (a wrong type is a
 * {@link FunctionException} naming the argument), digests, and reading a file argument.
 */
final class Args {
  private Args() {}

  static String str(List<Value> a, int i) {
    Value v = a.get(i);
    if (v.isNull()) {
      throw new FunctionException(i, "argument must not be null; a string is required.");
    }
    return Conversions.toStr(v)
        .orElseThrow(
            () -> new FunctionException(i, "a string is required, but got " + v.typeName() + "."));
  }

  static BigDecimal num(List<Value> a, int i) {
    Value v = a.get(i);
    return Conversions.toNumber(v)
        .orElseThrow(
            () -> new FunctionException(i, "a number is required, but got " + describe(v) + "."));
  }

  static int integer(List<Value> a, int i) {
    BigDecimal n = num(a, i);
    try {
      return n.stripTrailingZeros().intValueExact();
    } catch (ArithmeticException e) {
      throw new FunctionException(
          i, "a whole number is required, but got " + Value.formatNumber(n) + ".");
    }
  }

  static List<Value> list(List<Value> a, int i) {
    if (a.get(i) instanceof Value.ListValue l) {
      return l.elements();
    }
    throw new FunctionException(i, "a list is required, but got " + a.get(i).typeName() + ".");
  }

  static Map<String, Value> map(List<Value> a, int i) {
    if (a.get(i) instanceof Value.ObjectValue o) {
      return o.attributes();
    }
    throw new FunctionException(
        i, "a map or object is required, but got " + a.get(i).typeName() + ".");
  }

  /** A value's type, a string's text too (for messages about strings that are not numbers...). */
  static String describe(Value v) {
    return v instanceof Value.StringValue s ? "string \"" + s.value() + "\"" : v.typeName();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  static byte[] digest(String alg, byte[] data) {
    try {
      return MessageDigest.getInstance(alg).digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(alg + " is not available in this JDK", e);
    }
  }

  static String hex(String alg, byte[] data) {
    return HexFormat.of().formatHex(digest(alg, data));
  }

  /**
   * {@code raw} as UTF-8 text.
   *
   * @throws CharacterCodingException when it is not valid UTF-8
   */
  static String decodeUtf8(byte[] raw) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(raw))
        .toString();
  }

  /** Argument {@code i} as a path resolved against the context's base directory. */
  static Path path(List<Value> a, int i, EvalContext c) {
    try {
      return c.resolvePath(str(a, i));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(i, "invalid path: " + e.getMessage());
    }
  }

  /**
   * The contents of the file argument 0 names; a missing file is an error that tells to check the
   * path (and, with {@code suggestFileexists}, to guard with {@code fileexists()}).
   */
  static byte[] readFile(List<Value> a, EvalContext c, boolean suggestFileexists) {
    Path p = path(a, 0, c);
    if (!Files.isRegularFile(p)) {
      throw new FunctionException(
          0,
          "no file exists at \""
              + str(a, 0)
              + "\" (relative to "
              + (c.fileAccessConfined() ? "the configuration directory" : c.baseDirectory())
              + "); check the path"
              + (suggestFileexists ? ", or use fileexists() to guard." : "."));
    }
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new FunctionException(0, "cannot read \"" + p + "\": " + e.getMessage());
    }
  }
}
