package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The JSON syntax ({@code *.tf.json}) decodes to the same model as native syntax. */
class JsonConfigTest {

  private static final SimpleEvalContext CTX =
      SimpleEvalContext.empty()
          .withVariable("rev", Value.string("abc123"))
          .withVariable("hosts", Value.of(List.of("h1", "h2")))
          .withVariable("n", Value.number(2))
          .withLocal("tag", Value.string("app-abc123"))
          .withAttribute("terraform_data", "base", Value.of(Map.of("id", "base-id", "output", "o")))
          .withRoot("count", Value.of(Map.of("index", 1)))
          .withRoot("each", Value.of(Map.of("key", "k", "value", "v")))
          .withRoot("self", Value.of(Map.of("id", "self-id", "state_key", "sk")))
          .withRoot("path", Value.of(Map.of("module", ".", "root", ".", "cwd", "/w")));

  private static Configuration loadClean(String file, String text) {
    LoadResult r = ConfigLoader.load(Map.of(file, text));
    assertThat(r.diagnostics().list()).as(file).isEmpty();
    return r.config();
  }

  private static void assertSameModel(String hcl, String json) {
    Configuration h = loadClean("main.tf", hcl);
    Configuration j = loadClean("main.tf.json", json);
    assertThat(canonical(j)).isEqualTo(canonical(h));
  }

  // ------------------------------------------------------------------ canonical form

  private static Object eval(Expression e) {
    EvalResult r = new Evaluator().evaluate(e, CTX);
    assertThat(r.diagnostics().list()).as("evaluating %s", e.range()).isEmpty();
    return r.value().isWhollyKnown() ? r.value().toJava() : r.value().render();
  }

  private static Map<String, Object> attrs(Map<String, AttributeDecl> m) {
    Map<String, Object> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, eval(v.expr())));
    return out;
  }

  private static Object traversals(Expression e) {
    if (e instanceof Expression.Tuple t) {
      return t.elements().stream().map(JsonConfigTest::traversals).toList();
    }
    return e.traversals().stream().map(Traversal::toString).toList();
  }

  private static Object block(BlockDecl b) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", b.type());
    out.put("labels", b.labels());
    Map<String, Object> a = new TreeMap<>();
    b.attributes()
        .forEach(
            (k, v) ->
                a.put(
                    k,
                    k.equals("ignore_changes")
                            || k.equals("replace_triggered_by")
                            || k.equals("from")
                        ? traversals(v.expr())
                        : eval(v.expr())));
    out.put("attributes", a);
    out.put("blocks", b.blocks().stream().map(JsonConfigTest::block).toList());
    return out;
  }

  private static Map<String, Object> canonical(Configuration c) {
    Map<String, Object> out = new LinkedHashMap<>();
    c.variables()
        .forEach(
            (name, v) -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("default", v.defaultValue().map(JsonConfigTest::eval).orElse("<none>"));
              m.put("type", v.type().map(JsonConfigTest::traversals).orElse(List.of()));
              m.put("description", v.description());
              m.put("sensitive", v.sensitive());
              m.put("nullable", v.nullable());
              m.put(
                  "validations",
                  v.validations().stream()
                      .map(b -> b.attributes().keySet().stream().sorted().toList())
                      .toList());
              out.put("variable." + name, m);
            });
    for (LocalDecl l : c.locals()) {
      out.put("local." + l.name(), eval(l.expr()));
    }
    for (OutputDecl o : c.outputs()) {
      out.put(
          "output." + o.name(),
          List.of(
              eval(o.value()),
              o.sensitive(),
              o.description(),
              o.dependsOn().stream().map(Traversal::toString).toList()));
    }
    for (ResourceDecl r : c.resources()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("attributes", attrs(r.attributes()));
      m.put("depends_on", r.dependsOn().stream().map(Traversal::toString).toList());
      m.put("count", r.count().map(JsonConfigTest::eval).orElse("<none>"));
      m.put("for_each", r.forEach().map(JsonConfigTest::eval).orElse("<none>"));
      List<Object> provs = new ArrayList<>();
      for (ProvisionerDecl p : r.provisioners()) {
        provs.add(
            List.of(
                p.type(),
                p.when(),
                p.onFailure(),
                attrs(p.attributes()),
                p.connection().map(JsonConfigTest::block).orElse("<none>")));
      }
      m.put("provisioners", provs);
      m.put("connection", r.connection().map(JsonConfigTest::block).orElse("<none>"));
      m.put("lifecycle", r.lifecycle().map(JsonConfigTest::block).orElse("<none>"));
      out.put(r.address(), m);
    }
    out.put("removed", c.removed().stream().map(JsonConfigTest::block).toList());
    out.put("required_version", c.requiredVersion());
    return out;
  }

  // ------------------------------------------------------------------ equivalences

  @Test
  void theSeedExampleInJsonDecodesLikeItsNativeForm() {
    assertSameModel(
        """
        variable "rev" {
        }

        resource "stateful_provisioning" "app" {
          state_key = "${var.rev}"
          provisioner "remote-exec" {
            inline = [
              "my-favorite-deployment-tool --revision=${var.rev}"
            ]
            connection {
              user = "deployment-user"
              host = "deployment-admin-host.example.com"
              key_file = "deployment_private_key"
            }
          }
        }
        """,
        """
        {
          "variable": {"rev": {}},
          "resource": {
            "stateful_provisioning": {
              "app": {
                "//": "Run deployment steps whenever the revision changes.",
                "state_key": "${var.rev}",
                "provisioner": [
                  {"remote-exec": {
                    "inline": ["my-favorite-deployment-tool --revision=${var.rev}"],
                    "connection": {
                      "user": "deployment-user",
                      "host": "deployment-admin-host.example.com",
                      "key_file": "deployment_private_key"
                    }
                  }}
                ]
              }
            }
          }
        }
        """);
  }

  @Test
  void aFullConfigurationWithProvisionerOrderDependsOnAndLifecycle() {
    assertSameModel(
        """
        terraform { required_version = ">= 1.5" }
        variable "rev" {
          type        = string
          default     = "abc"
          description = "revision"
          sensitive   = true
          nullable    = false
          validation {
            condition     = length(var.rev) > 2
            error_message = "too short"
          }
        }
        variable "hosts" {
          type    = list(object({ name = string, port = optional(number, 22) }))
          default = []
        }
        locals {
          tag   = "app-${var.rev}"
          n     = 1 + 2 * 3
          flags = { a = true, b = null, c = [1, "two", 3.5] }
          cond  = var.n > 1 ? "many" : "one"
          up    = upper(var.rev)
          list  = [for h in var.hosts : "${h}:22"]
          tmpl  = "%{ for h in var.hosts }${h},%{ endfor }"
        }
        resource "terraform_data" "base" {
          input = "x"
          triggers_replace = [var.rev]
        }
        resource "stateful_provisioning" "app" {
          count      = var.n
          state_key  = "${var.rev}-${count.index}"
          triggers   = { rev = var.rev, base = terraform_data.base.id }
          tags       = { Name = local.tag }
          depends_on = [terraform_data.base]
          connection {
            type = "ssh"
            host = "h"
            port = 2222
          }
          provisioner "local-exec" {
            command = "echo create ${self.state_key}"
            environment = { A = "1" }
          }
          provisioner "file" {
            content     = "x"
            destination = "/tmp/x"
          }
          provisioner "local-exec" {
            when       = destroy
            on_failure = continue
            command    = "echo destroy"
          }
          provisioner "remote-exec" {
            inline = ["a", "b"]
            connection {
              host = "other"
            }
          }
          lifecycle {
            create_before_destroy = true
            ignore_changes        = [tags["Name"], triggers]
            replace_triggered_by  = [terraform_data.base.output]
            precondition {
              condition     = var.n > 0
              error_message = "n must be positive"
            }
          }
        }
        output "key" {
          value       = stateful_provisioning.app[*].id
          sensitive   = true
          description = "keys"
          depends_on  = [terraform_data.base]
        }
        removed {
          from = stateful_provisioning.old
          lifecycle {
            destroy = false
          }
        }
        """
            .replace(
                "value       = stateful_provisioning.app[*].id",
                "value       = terraform_data.base.id"),
        """
        {
          "//": "a comment at the top",
          "terraform": {"required_version": ">= 1.5"},
          "variable": {
            "rev": {
              "type": "string",
              "default": "abc",
              "description": "revision",
              "sensitive": true,
              "nullable": false,
              "validation": {
                "condition": "${length(var.rev) > 2}",
                "error_message": "too short"
              }
            },
            "hosts": {
              "type": "list(object({ name = string, port = optional(number, 22) }))",
              "default": []
            }
          },
          "locals": {
            "tag": "app-${var.rev}",
            "n": "${1 + 2 * 3}",
            "flags": {"a": true, "b": null, "c": [1, "two", 3.5]},
            "cond": "${var.n > 1 ? \\"many\\" : \\"one\\"}",
            "up": "${upper(var.rev)}",
            "list": "${[for h in var.hosts : \\"${h}:22\\"]}",
            "tmpl": "%{ for h in var.hosts }${h},%{ endfor }"
          },
          "resource": [
            {"terraform_data": {"base": {"input": "x", "triggers_replace": ["${var.rev}"]}}},
            {"stateful_provisioning": {
              "app": {
                "count": "${var.n}",
                "state_key": "${var.rev}-${count.index}",
                "triggers": {"rev": "${var.rev}", "base": "${terraform_data.base.id}"},
                "tags": {"Name": "${local.tag}"},
                "depends_on": ["terraform_data.base"],
                "connection": {"type": "ssh", "host": "h", "port": 2222},
                "provisioner": [
                  {"local-exec": {"command": "echo create ${self.state_key}", "environment": {"A": "1"}}},
                  {"file": {"content": "x", "destination": "/tmp/x"}},
                  {"local-exec": {"when": "destroy", "on_failure": "continue", "command": "echo destroy"}},
                  {"remote-exec": {"inline": ["a", "b"], "connection": {"host": "other"}}}
                ],
                "lifecycle": {
                  "create_before_destroy": true,
                  "ignore_changes": ["tags[\\"Name\\"]", "triggers"],
                  "replace_triggered_by": ["terraform_data.base.output"],
                  "precondition": [{"condition": "${var.n > 0}", "error_message": "n must be positive"}]
                }
              }
            }}
          ],
          "output": {
            "key": {
              "value": "${terraform_data.base.id}",
              "sensitive": true,
              "description": "keys",
              "depends_on": ["terraform_data.base"]
            }
          },
          "removed": {"from": "stateful_provisioning.old", "lifecycle": {"destroy": false}}
        }
        """);
  }

  @Test
  void nullResourceWithForEachAndIgnoreChangesAll() {
    assertSameModel(
        """
        resource "null_resource" "each" {
          for_each = toset(var.hosts)
          triggers = { host = each.key, v = each.value }
          lifecycle {
            ignore_changes = all
            prevent_destroy = true
          }
          provisioner "local-exec" {
            command = <<-EOT
              echo ${each.key}
              echo done
            EOT
            interpreter = ["/bin/sh", "-c"]
          }
        }
        """,
        """
        {"resource": {"null_resource": {"each": {
          "for_each": "${toset(var.hosts)}",
          "triggers": {"host": "${each.key}", "v": "${each.value}"},
          "lifecycle": {"ignore_changes": "all", "prevent_destroy": true},
          "provisioner": {"local-exec": {
            "command": "echo ${each.key}\\necho done\\n",
            "interpreter": ["/bin/sh", "-c"]
          }}
        }}}}
        """);
  }

  @Test
  void labelsMayBeSplitOverSeveralObjectsAndFilesMix() {
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "a.tf", "variable \"rev\" {}\n",
                "b.tf.json",
                    """
                    {"resource": {"terraform_data": {
                      "one": {"input": "${var.rev}"},
                      "two": [{"input": 2, "depends_on": ["terraform_data.one"]}]
                    }}}
                    """));
    assertThat(r.diagnostics().list()).isEmpty();
    assertThat(r.config().resources())
        .extracting(ResourceDecl::address)
        .containsExactly("terraform_data.one", "terraform_data.two");
    assertThat(r.config().resource("terraform_data.two").orElseThrow().dependsOn())
        .extracting(Traversal::toString)
        .containsExactly("terraform_data.one");
  }

  @Test
  void escapedTemplateSequencesStayLiteral() {
    Configuration c = loadClean("m.tf.json", "{\"locals\": {\"a\": \"$${not} %%{x} \\\\n\"}}");
    assertThat(eval(c.locals().get(0).expr())).isEqualTo("${not} %{x} \\n");
  }

  // ------------------------------------------------------------------ diagnostics

  private static List<Diagnostic> errors(String json) {
    return ConfigLoader.load(Map.of("main.tf.json", json)).diagnostics().errors();
  }

  @Test
  void malformedJsonIsAnErrorWithPosition() {
    List<Diagnostic> e = errors("{\n  \"resource\": {\n    \"a\": 1,\n  }\n}");
    assertThat(e).hasSize(1);
    assertThat(e.get(0).summary()).isEqualTo("Invalid JSON");
    assertThat(e.get(0).range().toString()).isEqualTo("main.tf.json:4:3");
  }

  @Test
  void theRootMustBeAnObject() {
    List<Diagnostic> e = errors("[1]");
    assertThat(e).extracting(Diagnostic::summary).containsExactly("Invalid JSON configuration");
    assertThat(e.get(0).range().toString()).isEqualTo("main.tf.json:1:1");
  }

  @Test
  void errorsInsideTemplateStringsPointIntoTheFile() {
    List<Diagnostic> e =
        errors(
            """
            {
              "locals": {
                "x": "abc ${var.a +} d"
              }
            }
            """);
    assertThat(e).isNotEmpty();
    assertThat(e.get(0).range().file()).isEqualTo("main.tf.json");
    assertThat(e.get(0).range().line()).isEqualTo(3);
    assertThat(e.get(0).range().column()).isGreaterThan(10);
  }

  @Test
  void decoderErrorsNameTheJsonPosition() {
    List<Diagnostic> e =
        errors(
            """
            {
              "resource": {
                "stateful_provisioning": {
                  "app": {
                    "tagz": {},
                    "connection": {"type": "winrm"},
                    "provisioner": [{"chef": {}}]
                  }
                },
                "aws_instance": {"web": {}}
              },
              "import": {"m": {}}
            }
            """);
    assertThat(e)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactlyInAnyOrder(
            "Unsupported argument @main.tf.json:5:9",
            "Missing required argument @main.tf.json:4:7",
            "Unsupported connection type @main.tf.json:6:32",
            "Unsupported provisioner type @main.tf.json:7:26",
            "Unsupported resource type @main.tf.json:10:5",
            "Unsupported block type @main.tf.json:12:3");
  }

  @Test
  void badDependsOnAndNonObjectBlocksAreReported() {
    List<Diagnostic> e =
        errors(
            """
            {"resource": {"terraform_data": {"a": {
              "depends_on": ["terraform_data.b.id", "nope"],
              "lifecycle": 5
            }}}}
            """);
    assertThat(e)
        .extracting(Diagnostic::summary)
        .containsExactlyInAnyOrder(
            "Invalid depends_on reference",
            "Invalid depends_on reference",
            "Invalid lifecycle block");
  }

  @Test
  void duplicateArgumentsAreErrors() {
    List<Diagnostic> e = errors("{\"locals\": {\"a\": 1, \"a\": 2}}");
    assertThat(e).extracting(Diagnostic::summary).containsExactly("Duplicate argument");
    assertThat(e.get(0).range().toString()).isEqualTo("main.tf.json:1:21");
  }

  @Test
  void mutatedJsonNeverThrows() {
    String base =
        "{\"variable\": {\"a\": {\"type\": \"list(string)\"}}, \"resource\":"
            + " {\"stateful_provisioning\": {\"x\": {\"state_key\": \"${var.a[0]}\","
            + " \"depends_on\": [\"null_resource.y\"], \"provisioner\": [{\"local-exec\":"
            + " {\"command\": \"%{ if true }x%{ endif }\"}}]}}}}";
    java.util.Random rnd = new java.util.Random(42);
    String alphabet = "{}[]\":,${}%~\\ ab1.";
    for (int i = 0; i < 2000; i++) {
      StringBuilder sb = new StringBuilder(base);
      for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
        int at = rnd.nextInt(sb.length());
        switch (rnd.nextInt(3)) {
          case 0 -> sb.deleteCharAt(at);
          case 1 -> sb.insert(at, alphabet.charAt(rnd.nextInt(alphabet.length())));
          default -> sb.setCharAt(at, alphabet.charAt(rnd.nextInt(alphabet.length())));
        }
      }
      LoadResult r = ConfigLoader.load(Map.of("f.tf.json", sb.toString()));
      for (Diagnostic d : r.diagnostics().list()) {
        assertThat(d.range()).isNotNull();
        assertThat(d.summary()).isNotEqualTo("Internal parser error");
      }
    }
  }
}
