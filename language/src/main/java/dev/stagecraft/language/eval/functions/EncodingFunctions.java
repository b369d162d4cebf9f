package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.b64;
import static dev.stagecraft.language.eval.functions.Args.decodeUtf8;
import static dev.stagecraft.language.eval.functions.Args.str;
import static dev.stagecraft.language.eval.functions.Args.utf8;

import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Json;
import dev.stagecraft.language.eval.Value;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Terraform's encoding functions (JSON, YAML, base64, URL). */
final class EncodingFunctions {
  private EncodingFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("jsonencode", 1, 1, EncodingFunctions::jsonencode))
        .with(FunctionDef.of("jsondecode", 1, 1, EncodingFunctions::jsondecode))
        .with(
            FunctionDef.of(
                "yamlencode",
                1,
                1,
                (a, c) -> {
                  EvalBudget.of(c).checkEncodable(a.get(0), "yamlencode()");
                  return Value.string(Yaml.encode(a.get(0)));
                }))
        .with(
            FunctionDef.of("yamldecode", 1, 1, (a, c) -> Yaml.decode(str(a, 0), EvalBudget.of(c))))
        .with(FunctionDef.of("base64encode", 1, 1, (a, c) -> Value.string(b64(utf8(str(a, 0))))))
        .with(FunctionDef.of("base64decode", 1, 1, EncodingFunctions::base64decode))
        .with(FunctionDef.of("base64gzip", 1, 1, EncodingFunctions::base64gzip))
        .with(FunctionDef.of("urlencode", 1, 1, EncodingFunctions::urlencode));
  }

  private static Value jsonencode(List<Value> a, EvalContext c) {
    EvalBudget.of(c).checkEncodable(a.get(0), "jsonencode()");
    return Value.string(Json.encode(a.get(0)));
  }

  private static Value jsondecode(List<Value> a, EvalContext c) {
    try {
      return Json.decode(str(a, 0));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(0, "the given string is not valid JSON: " + e.getMessage());
    }
  }

  private static Value base64decode(List<Value> a, EvalContext c) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(str(a, 0));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(0, "the given value is not valid base64: " + e.getMessage());
    }
    try {
      return Value.string(decodeUtf8(raw));
    } catch (CharacterCodingException e) {
      throw new FunctionException(0, "the decoded result is not valid UTF-8.");
    }
  }

  private static Value base64gzip(List<Value> a, EvalContext c) {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
      gz.write(utf8(str(a, 0)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return Value.string(b64(bos.toByteArray()));
  }

  private static Value urlencode(List<Value> a, EvalContext c) {
    // Go's url.QueryEscape: like URLEncoder but escapes '*' and keeps '~'
    String s = URLEncoder.encode(str(a, 0), StandardCharsets.UTF_8);
    return Value.string(s.replace("*", "%2A").replace("%7E", "~"));
  }
}
