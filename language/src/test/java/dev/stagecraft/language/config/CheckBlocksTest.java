package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code check} blocks: decoded with Terraform's rules, every mistake an error at its position. */
class CheckBlocksTest {

  private static LoadResult load(String text) {
    return ConfigLoader.load(Map.of("main.tf", text));
  }

  private static List<String> errors(String text) {
    return load(text).diagnostics().errors().stream()
        .map(d -> d.summary() + " @" + d.range())
        .toList();
  }

  @Test
  void decodesACheckWithItsAssertions() {
    LoadResult r =
        load(
            """
            variable "replicas" { default = 3 }
            check "capacity" {
              assert {
                condition     = var.replicas >= 2
                error_message = "At least two replicas are needed, not ${var.replicas}."
              }
              assert {
                condition     = var.replicas <= 10
                error_message = "Too many replicas."
              }
            }
            """);
    assertThat(r.diagnostics().list()).isEmpty();
    CheckDecl check = r.config().checks().get(0);
    assertThat(check.name()).isEqualTo("capacity");
    assertThat(check.address()).isEqualTo("check.capacity");
    assertThat(check.asserts()).hasSize(2);
    assertThat(check.asserts().get(0).condition().range().toString()).isEqualTo("main.tf:4:21");
    assertThat(check.asserts().get(1).range().toString()).isEqualTo("main.tf:7:3");
  }

  @Test
  void aCheckWithoutAssertIsAnError() {
    assertThat(errors("check \"empty\" {\n}\n")).containsExactly("Zero assert blocks @main.tf:1:1");
  }

  @Test
  void duplicateCheckNamesAreAnError() {
    String one =
        """
        check "same" {
          assert {
            condition     = var.x != ""
            error_message = "x is empty."
          }
        }
        """;
    List<Diagnostic> errs = load("variable \"x\" {}\n" + one + one).diagnostics().errors();
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Duplicate check \"same\" configuration @main.tf:8:7");
    assertThat(errs.get(0).detail())
        .isEqualTo(
            "A check block named \"same\" was already declared at main.tf:2:1. Check blocks must"
                + " be unique within each module.");
  }

  @Test
  void aConditionThatRefersToNothingIsAnError() {
    List<Diagnostic> errs =
        load("""
                check "constant" {
                  assert {
                    condition     = 1 + 1 == 2
                    error_message = "Arithmetic is broken."
                  }
                }
                """)
            .diagnostics()
            .errors();
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Invalid assert expression @main.tf:3:21");
    assertThat(errs.get(0).detail()).contains("must refer to at least one object");
  }

  @Test
  void anAssertNeedsConditionAndErrorMessageAndNothingElse() {
    assertThat(
            errors(
                """
                check "partial" {
                  assert {
                    condition = var.x
                    severity  = "high"
                  }
                  assert {
                    error_message = "no condition"
                  }
                  retries = 3
                  expect { }
                }
                variable "x" {}
                """))
        .containsExactlyInAnyOrder(
            "Unsupported argument @main.tf:4:5",
            "Missing required argument @main.tf:2:3",
            "Missing required argument @main.tf:6:3",
            "Unsupported argument @main.tf:9:3",
            "Unsupported block type @main.tf:10:3");
  }

  @Test
  void anInvalidNameOrMissingLabelIsAnError() {
    assertThat(
            errors(
                """
                check "1st" {
                  assert {
                    condition     = var.x
                    error_message = "x"
                  }
                }
                check {
                  assert {
                    condition     = var.x
                    error_message = "x"
                  }
                }
                variable "x" {}
                """))
        .containsExactly(
            "Invalid check block name @main.tf:1:7", "Missing name for check @main.tf:7:1");
  }

  @Test
  void aScopedDataSourceIsRefusedLikeATopLevelOne() {
    List<Diagnostic> errs =
        load("""
                check "health" {
                  data "local_file" "status" {
                    filename = "status.txt"
                  }
                  data "http" "second" {
                    url = "https://example.com"
                  }
                  assert {
                    condition     = var.x != ""
                    error_message = "x"
                  }
                }
                variable "x" {}
                """)
            .diagnostics()
            .errors();
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly(
            "Unsupported data source @main.tf:2:3", "Multiple data resource blocks @main.tf:5:3");
    assertThat(errs.get(0).detail())
        .startsWith(
            "Data sources (data \"local_file\") are not supported by Stagecraft in a check block.")
        .contains("file(\"path\")");
    assertThat(errs.get(1).detail())
        .isEqualTo("This check block already has a data resource defined at main.tf:2:3.");
  }

  @Test
  void checksAreReadFromJsonSyntaxToo() {
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "main.tf.json",
                """
                {"variable": {"x": {}},
                 "check": {"named": {"assert": [
                   {"condition": "${var.x != \\"\\"}", "error_message": "x is empty."}]}}}
                """));
    assertThat(r.diagnostics().list()).isEmpty();
    assertThat(r.config().checks()).extracting(CheckDecl::name).containsExactly("named");
    assertThat(r.config().checks().get(0).asserts()).hasSize(1);
  }
}
