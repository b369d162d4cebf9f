package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.language.types.Type;
import dev.stagecraft.language.types.TypeConstraints;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VariableValuesTest {

  private static Configuration config(String text) {
    LoadResult r = ConfigLoader.load(Map.of("vars.tf", text));
    assertThat(r.diagnostics().errors()).isEmpty();
    return r.config();
  }

  private static Type type(String text) {
    TypeConstraints.Parsed p =
        TypeConstraints.parse(Parser.parseExpression("t.tf", text).expression());
    assertThat(p.diagnostics().list()).as(text).isEmpty();
    return p.type();
  }

  private static Object convert(String typeText, Object value) {
    TypeConstraints.Conversion c = TypeConstraints.convert(Value.of(value), type(typeText));
    assertThat(c.error()).as("%s <- %s", typeText, value).isEmpty();
    return c.value().toJava();
  }

  private static String conversionError(String typeText, Object value) {
    TypeConstraints.Conversion c = TypeConstraints.convert(Value.of(value), type(typeText));
    assertThat(c.error()).as("%s <- %s", typeText, value).isPresent();
    return c.error().get();
  }

  @Test
  void parsesEveryTypeConstraintAndPrintsItBack() {
    for (String t :
        List.of(
            "string",
            "number",
            "bool",
            "any",
            "list(string)",
            "set(number)",
            "map(list(bool))",
            "tuple([string, number, bool])",
            "object({name = string, port = optional(number, 22), tags = optional(map(string))})")) {
      assertThat(type(t).toString()).isEqualTo(t);
    }
  }

  @Test
  void rejectsInvalidTypeConstraintsWithPositions() {
    for (String t :
        List.of(
            "strin",
            "set",
            "list(list)",
            "map(map)",
            "list(string, number)",
            "\"string\"",
            "optional(string)",
            "object({a = optional(number, \"x\")})",
            "var.x",
            "foo(string)",
            "tuple(string)")) {
      TypeConstraints.Parsed p =
          TypeConstraints.parse(Parser.parseExpression("t.tf", t).expression());
      assertThat(p.diagnostics().errors()).as(t).isNotEmpty();
      assertThat(p.diagnostics().errors().get(0).range().toString()).as(t).startsWith("t.tf:1:");
      assertThat(p.type()).isEqualTo(Type.ANY);
    }
    LoadResult r = ConfigLoader.load(Map.of("v.tf", "variable \"x\" {\n  type = lst(string)\n}\n"));
    assertThat(r.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Invalid type specification @v.tf:2:10");
  }

  @Test
  void aBareListOrMapIsTerraformsLegacyShorthandForListOfAnyAndMapOfAny() {
    assertThat(type("list")).isEqualTo(new Type.ListOf(Type.ANY));
    assertThat(type("map")).isEqualTo(new Type.MapOf(Type.ANY));
    assertThat(convert("list", List.of("a", "b"))).isEqualTo(List.of("a", "b"));
    assertThat(convert("map", Map.of("k", "v"))).isEqualTo(Map.of("k", "v"));
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "v.tf", "variable \"nodes\" {\n  type    = list\n  default = [\"a\", \"b\"]\n}\n"));
    assertThat(r.diagnostics().list()).isEmpty();
  }

  @Test
  void convertsValuesLikeTerraform() {
    assertThat(convert("number", "5")).isEqualTo(new BigDecimal("5"));
    assertThat(convert("string", 5)).isEqualTo("5");
    assertThat(convert("string", true)).isEqualTo("true");
    assertThat(convert("bool", "false")).isEqualTo(false);
    assertThat(convert("set(string)", List.of("b", "a", "b"))).isEqualTo(List.of("a", "b"));
    assertThat(convert("list(number)", List.of("1", 2)))
        .isEqualTo(List.of(BigDecimal.ONE, new BigDecimal(2)));
    assertThat(convert("map(string)", Map.of("a", 1))).isEqualTo(Map.of("a", "1"));
    assertThat(convert("tuple([string, number])", List.of(1, "2")))
        .isEqualTo(List.of("1", new BigDecimal("2")));
    assertThat(convert("any", Map.of("a", 1))).isEqualTo(Map.of("a", BigDecimal.ONE));
    assertThat(
            convert(
                "list(object({name = string, port = optional(number, 22), tag = optional(string)}))",
                List.of(
                    Map.of("name", "a", "extra", "dropped"), Map.of("name", "b", "port", "80"))))
        .isEqualTo(
            List.of(
                nullable(Map.of("name", "a", "port", new BigDecimal(22)), "tag"),
                nullable(Map.of("name", "b", "port", new BigDecimal(80)), "tag")));
  }

  private static Map<String, Object> nullable(Map<String, Object> m, String nullKey) {
    Map<String, Object> out = new java.util.TreeMap<>(m);
    out.put(nullKey, null);
    return out;
  }

  @Test
  void conversionErrorsNameThePath() {
    assertThat(conversionError("number", "five"))
        .isEqualTo("a number is required, but got the string \"five\"");
    assertThat(conversionError("list(number)", List.of(1, "x")))
        .isEqualTo("element [1]: a number is required, but got the string \"x\"");
    assertThat(conversionError("object({a = object({b = bool})})", Map.of("a", Map.of("b", "x"))))
        .isEqualTo("attribute \"a\"[\"b\"]: a bool is required, but got the string \"x\"");
    assertThat(conversionError("object({a = string})", Map.of()))
        .isEqualTo("attribute \"a\" is required");
    assertThat(conversionError("tuple([string])", List.of("a", "b")))
        .isEqualTo("a tuple of 1 elements is required, but got 2");
    assertThat(conversionError("map(string)", List.of("a")))
        .startsWith("a map of string is required");
    assertThat(conversionError("string", List.of("a")))
        .isEqualTo("a string is required, but got a list");
  }

  @Test
  void resolveAppliesDefaultsTypesAndSensitivity() {
    Configuration c =
        config(
            """
            variable "port" {
              type    = number
              default = "8080"
            }
            variable "zones" {
              type = set(string)
            }
            variable "token" {
              type      = string
              sensitive = true
            }
            variable "untyped" {
              default = { a = 1 }
            }
            """);
    VariableValues.Resolved r =
        VariableValues.resolve(
            c,
            Map.of(
                "zones", Value.of(List.of("b", "a", "a")),
                "token", Value.string("s3cret"),
                "stray", Value.string("x")));
    assertThat(r.diagnostics().errors()).isEmpty();
    assertThat(r.diagnostics().list())
        .extracting(Diagnostic::summary)
        .containsExactly("Value for undeclared variable");
    assertThat(r.values().get("port")).isEqualTo(Value.number(8080));
    assertThat(r.values().get("zones").toJava()).isEqualTo(List.of("a", "b"));
    assertThat(r.values().get("token").isSensitive()).isTrue();
    assertThat(r.values().get("token").render()).isEqualTo(Value.SENSITIVE_TEXT);
    assertThat(r.values().get("untyped").toJava()).isEqualTo(Map.of("a", BigDecimal.ONE));
    assertThat(r.asObject().toJava()).isInstanceOf(Map.class);
  }

  @Test
  void invalidAndMissingValuesAreDiagnosticsNamingTheDeclaration() {
    Configuration c =
        config(
            """
            variable "port" {
              type = number
            }
            variable "rev" {
            }
            variable "strict" {
              type     = string
              nullable = false
            }
            variable "fallback" {
              type     = string
              nullable = false
              default  = "d"
            }
            """);
    VariableValues.Resolved r =
        VariableValues.resolve(
            c,
            Map.of(
                "port", Value.string("eighty"),
                "strict", Value.NULL,
                "fallback", Value.NULL));
    assertThat(r.hasErrors()).isTrue();
    assertThat(r.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly(
            "Invalid value for variable @vars.tf:1:1",
            "No value for required variable @vars.tf:4:1",
            "Invalid value for variable @vars.tf:6:1");
    Diagnostic port = r.diagnostics().errors().get(0);
    assertThat(port.detail())
        .contains("var.port")
        .contains("vars.tf:1:1")
        .contains("a number is required")
        .contains("expected type is number");
    assertThat(r.diagnostics().errors().get(2).detail()).contains("not nullable");
    assertThat(r.values().get("fallback")).isEqualTo(Value.string("d"));
  }

  @Test
  void invalidDefaultsAreReported() {
    Configuration c = config("variable \"n\" {\n  type = number\n  default = \"x\"\n}\n");
    VariableValues.Resolved r = VariableValues.resolve(c, Map.of());
    assertThat(r.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Invalid default value for variable @vars.tf:3:13");
  }

  @Test
  void validationBlocksAreEvaluatedAgainstTheVariableOnly() {
    Configuration c =
        config(
            """
            variable "image_id" {
              type = string
              validation {
                condition     = length(var.image_id) > 4 && substr(var.image_id, 0, 4) == "ami-"
                error_message = "The image_id value must be a valid AMI id, starting with \\"ami-\\"."
              }
              validation {
                condition     = can(regex("^[a-z0-9-]+$", var.image_id))
                error_message = "Got ${var.image_id}: only lower-case letters, digits and dashes."
              }
            }
            variable "other" {
              default = 1
              validation {
                condition     = var.other > local.min
                error_message = "too small"
              }
            }
            """);
    assertThat(
            VariableValues.resolve(c, Map.of("image_id", Value.string("ami-123")))
                .diagnostics()
                .errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid reference in variable validation");
    VariableValues.Resolved bad =
        VariableValues.resolve(c, Map.of("image_id", Value.string("AMI_X")));
    assertThat(bad.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range().line())
        .containsExactly(
            "Invalid value for variable @4",
            "Invalid value for variable @8",
            "Invalid reference in variable validation @15");
    assertThat(bad.diagnostics().errors().get(0).detail())
        .startsWith("The image_id value must be a valid AMI id, starting with \"ami-\".");
    assertThat(bad.diagnostics().errors().get(1).detail()).startsWith("Got AMI_X: only lower-case");
  }

  @Test
  void sensitiveValuesAreNotEchoedInValidationMessages() {
    Configuration c =
        config(
            """
            variable "pw" {
              sensitive = true
              validation {
                condition     = length(var.pw) >= 8
                error_message = "Password ${var.pw} is too short."
              }
            }
            """);
    VariableValues.Resolved r = VariableValues.resolve(c, Map.of("pw", Value.string("hunter2")));
    assertThat(r.diagnostics().errors()).hasSize(1);
    assertThat(r.diagnostics().errors().get(0).detail()).doesNotContain("hunter2");
  }

  @Test
  void cliValuesAreStringsForPrimitivesAndExpressionsForCollections() {
    Configuration c =
        config(
            """
            variable "n" { type = number }
            variable "s" {}
            variable "l" { type = list(string) }
            variable "m" { type = map(number) }
            """);
    assertThat(VariableValues.parseCliValue(c.variables().get("n"), "5").value())
        .isEqualTo(Value.string("5"));
    assertThat(VariableValues.parseCliValue(c.variables().get("s"), "[1]").value())
        .isEqualTo(Value.string("[1]"));
    assertThat(
            VariableValues.parseCliValue(c.variables().get("l"), "[\"a\", \"b\"]").value().toJava())
        .isEqualTo(List.of("a", "b"));
    assertThat(VariableValues.parseCliValue(c.variables().get("m"), "{a = 1}").value().toJava())
        .isEqualTo(Map.of("a", BigDecimal.ONE));
    assertThat(
            VariableValues.parseCliValue(c.variables().get("m"), "{a = var.x}")
                .diagnostics()
                .errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Variables not allowed");
    VariableValues.Resolved r =
        VariableValues.resolve(
            c,
            Map.of(
                "n", VariableValues.parseCliValue(c.variables().get("n"), "5").value(),
                "s", Value.string("x"),
                "l", Value.of(List.of("a")),
                "m", Value.of(Map.of("a", "2"))));
    assertThat(r.diagnostics().list()).isEmpty();
    assertThat(r.values().get("n")).isEqualTo(Value.number(5));
    assertThat(r.values().get("m").toJava()).isEqualTo(Map.of("a", new BigDecimal(2)));
  }
}
