package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No role can read a sealed state value in clear, over the real stack (docs/planning.md "Sensitive
 * values from state"): a run writes a secret into state (sealed), then a reader, a deployer and an
 * admin each plan configurations that read it back — kept by {@code ignore_changes} (all, and a map
 * key) and output, copied into another resource, used by {@code replace_triggered_by}, interpolated
 * into a failing condition's {@code error_message}, fed to an expression that fails on it or to
 * {@code nonsensitive()} — through {@code POST /api/v1/plans} and the CLI's {@code plan -json}; the
 * deployer and admin start runs of them ({@code POST /api/v1/runs}; the reader is refused), and
 * every role reads every run ({@code GET /api/v1/runs/{id}}, {@code /events}, {@code /logs}, the
 * runs list, the CLI's {@code runs show}). Every answer is kept and scanned: none may hold the
 * secret in clear or in base64, and {@code (sensitive value)} must show where it would have been.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SensitiveStateValuesApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** Writes the secret into state: sealed in {@code a.input}, {@code s.triggers.pw}. */
  static final String SEED =
      """
      variable "secret" {
        type      = string
        sensitive = true
      }
      resource "terraform_data" "a" {
        input = var.secret
      }
      resource "stateful_provisioning" "s" {
        state_key = "k"
        triggers  = { pw = var.secret, plain = "visible" }
        tags      = { v = "1" }
      }
      resource "terraform_data" "c" {
        input = "x"
      }
      """;

  /** The issue's reproduction: an output of an input that {@code ignore_changes = all} keeps. */
  static final String LEAK =
      """
      resource "terraform_data" "a" {
        input = "configured"
        lifecycle {
          ignore_changes = all
        }
      }
      output "leak" {
        value = terraform_data.a.input
      }
      """;

  /**
   * Keeps the secrets (all, and a map key), outputs one sensitive, copies the other and prints it
   * from a provisioner.
   */
  static final String KEEP =
      """
      resource "terraform_data" "a" {
        input = "configured"
        lifecycle {
          ignore_changes = all
        }
      }
      resource "stateful_provisioning" "s" {
        state_key = "k"
        triggers  = { pw = "configured", plain = "visible" }
        tags      = { v = "2" }
        lifecycle {
          ignore_changes = [triggers["pw"]]
        }
      }
      resource "terraform_data" "c" {
        input = "x"
      }
      resource "terraform_data" "r" {
        input = stateful_provisioning.s.triggers["pw"]
        provisioner "local-exec" {
          command = "echo kept=${stateful_provisioning.s.triggers["pw"]}"
        }
      }
      output "kept" {
        value     = terraform_data.a.output
        sensitive = true
      }
      output "plain" {
        value = stateful_provisioning.s.triggers.plain
      }
      """;

  /** A new secret: {@code c} is replaced because {@code a.input} changed. */
  static final String TRIGGER =
      SEED.replace(
          "resource \"terraform_data\" \"c\" {\n  input = \"x\"\n}",
          """
          resource "terraform_data" "c" {
            input = "x"
            lifecycle {
              replace_triggered_by = [terraform_data.a.input]
            }
          }""");

  /**
   * Holds against an empty state ({@code POST /runs} checks that first), fails against the real
   * one, with a message made of the kept secret.
   */
  static final String CONDITION =
      """
      resource "terraform_data" "a" {
        input = "configured"
        lifecycle {
          ignore_changes = all
          postcondition {
            condition     = self.input == "configured"
            error_message = "a holds ${self.input}"
          }
        }
      }
      """;

  /**
   * Expressions that fail on the kept secret (their errors quote a plain value), and {@code
   * nonsensitive()} of it (refused: docs/adr/0062).
   */
  static final String FAILING =
      """
      resource "terraform_data" "a" {
        input = "configured"
        lifecycle {
          ignore_changes = all
        }
      }
      resource "terraform_data" "sum" {
        input = terraform_data.a.input + 1
      }
      resource "terraform_data" "parsed" {
        input = parseint(terraform_data.a.input, 16)
      }
      resource "terraform_data" "revealed" {
        input = nonsensitive(terraform_data.a.input)
      }
      """;

  SharedStack stack;
  String suffix = UUID.randomUUID().toString().substring(0, 8);
  String workspace = "sensitive-" + suffix;
  String secret;
  String rotated;
  final Map<String, String> tokens = new LinkedHashMap<>();
  final List<String> runs = new ArrayList<>();

  @BeforeAll
  void aRunWritesASecretIntoStateSealed() throws Exception {
    stack = SharedStack.get();
    secret = randomSecret("sealed");
    rotated = randomSecret("rotated");
    Response tenant =
        call("POST", "/api/v1/tenants", stack.token(), Map.of("name", "sensitive-" + suffix));
    assertThat(tenant.status()).as(tenant.body()).isEqualTo(201);
    tokens.put("admin", tenant.json("/token"));
    for (String role : List.of("reader", "deployer")) {
      Response token = call("POST", "/api/v1/tokens", tokens.get("admin"), Map.of("role", role));
      assertThat(token.status()).as(token.body()).isEqualTo(201);
      tokens.put(role, token.json("/token"));
    }
    Response ws =
        call(
            "POST",
            "/api/v1/workspaces",
            tokens.get("admin"),
            Map.of("name", workspace, "autoApply", true));
    assertThat(ws.status()).as(ws.body()).isEqualTo(201);
    String seed = startRun("admin", SEED, Map.of("secret", secret));
    assertThat(awaitEnd(seed, "admin").json("/status")).isEqualTo("applied");
    // what the reader reads too: an applied run keeping the secrets, and an errored one
    String kept = startRun("admin", KEEP, Map.of());
    assertThat(awaitEnd(kept, "admin").json("/status")).isEqualTo("applied");
    String errored = startRun("admin", CONDITION, Map.of());
    assertThat(awaitEnd(errored, "admin").json("/status")).isEqualTo("errored");
    runs.addAll(List.of(seed, kept, errored));
  }

  @ParameterizedTest
  @ValueSource(strings = {"reader", "deployer", "admin"})
  void anOutputOfAValueIgnoreChangesKeptFromStateIsRefusedWithoutTheValue(String role)
      throws Exception {
    Response plan = plan(role, LEAK, Map.of());

    assertThat(plan.status()).as(plan.body()).isEqualTo(422);
    assertThat(plan.body()).contains("Output refers to sensitive values");
    assertThat(leaks(Map.of("POST /api/v1/plans as " + role, plan.body()))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"reader", "deployer", "admin"})
  void noAnswerToAnyRoleHoldsASealedValueFromState(String role) throws Exception {
    Map<String, String> answers = new LinkedHashMap<>();
    Response keep = plan(role, KEEP, Map.of());
    answers.put("plan keep", keep.body());
    assertThat(keep.status()).as(keep.body()).isEqualTo(200);
    JsonNode kept = JSON.readTree(keep.body());
    assertThat(kept.at("/plan/output_changes/kept/after_sensitive").asBoolean()).isTrue();
    assertThat(kept.at("/plan/output_changes/plain/after").asText()).isEqualTo("visible");
    // the applied run recorded its outputs (ADR 0064): unchanged, they are not shown again
    assertThat(kept.at("/rendered").asText()).contains("No changes.");
    Response trigger = plan(role, TRIGGER, Map.of("secret", rotated));
    answers.put("plan trigger", trigger.body());
    assertThat(trigger.status()).as(trigger.body()).isEqualTo(200);
    assertThat(trigger.body()).contains("replace_by_triggers");
    Response condition = plan(role, CONDITION, Map.of());
    answers.put("plan condition", condition.body());
    assertThat(condition.status()).as(condition.body()).isEqualTo(422);
    assertThat(condition.body())
        .contains("The error message included a sensitive value, so it will not be displayed.");
    Response failing = plan(role, FAILING, Map.of());
    answers.put("plan failing expressions", failing.body());
    assertThat(failing.status()).as(failing.body()).isEqualTo(422);
    assertThat(failing.body()).contains("Invalid value for argument 1 of nonsensitive()");
    CliResult cliPlan = cli(role, KEEP, "plan", "-workspace=" + workspace, "-json");
    answers.put("cli plan -json", cliPlan.all());
    assertThat(cliPlan.exitCode()).as(cliPlan.all()).isZero();
    assertThat(cliPlan.out()).contains("\"after_sensitive\"");

    List<String> read = new ArrayList<>(runs);
    if (role.equals("reader")) {
      Response refused = call("POST", "/api/v1/runs", tokens.get(role), runBody(KEEP, Map.of()));
      answers.put("POST /api/v1/runs", refused.body());
      assertThat(refused.status()).isEqualTo(403);
    } else {
      read.add(startRun(role, KEEP, Map.of()));
      read.add(startRun(role, CONDITION, Map.of()));
    }
    for (String run : read) {
      answers.put("run " + run, awaitEnd(run, role).body());
      answers.put("events " + run, get(role, "/api/v1/runs/" + run + "/events?after=0&wait=0"));
      answers.put(
          "logs " + run,
          RunLogEvents.readAll(
                  stack.plannerUrl(), tokens.get(role), run, null, Duration.ofSeconds(30))
              .toString());
      CliResult show = cli(role, KEEP, "runs", "show", run);
      assertThat(show.exitCode()).as(show.all()).isZero();
      answers.put("cli runs show " + run, show.all());
    }
    answers.put("runs list", get(role, "/api/v1/runs?workspace=" + workspace));
    // the provisioner of the run that created r printed the kept secret: redacted
    assertThat(answers.get("events " + runs.get(1))).contains("kept=(sensitive value)");
    assertThat(answers.get("logs " + runs.get(1))).contains("kept=(sensitive value)");

    String all = String.join("\n", answers.values());
    assertThat(all)
        .contains("(sensitive value)")
        .contains("The error message included a sensitive value, so it will not be displayed.");
    assertThat(leaks(answers)).as("answers to the %s holding the secret", role).isEmpty();
  }

  /** Where an answer holds the secret (or the rotated one), in clear or in base64. */
  private List<String> leaks(Map<String, String> answers) {
    List<String> out = new ArrayList<>();
    answers.forEach(
        (where, text) -> {
          out.addAll(LeakScan.occurrences(where, text, "secret", secret));
          out.addAll(LeakScan.occurrences(where, text, "rotated secret", rotated));
        });
    return out;
  }

  private static String randomSecret(String prefix) {
    byte[] random = new byte[12];
    new SecureRandom().nextBytes(random);
    return prefix + HexFormat.of().formatHex(random);
  }

  private Response plan(String role, String mainTf, Map<String, String> variables)
      throws Exception {
    return call("POST", "/api/v1/plans", tokens.get(role), runBody(mainTf, variables));
  }

  private Map<String, Object> runBody(String mainTf, Map<String, String> variables) {
    return Map.of(
        "workspace", workspace, "files", Map.of("main.tf", mainTf), "variables", variables);
  }

  private String startRun(String role, String mainTf, Map<String, String> variables)
      throws Exception {
    Response run = call("POST", "/api/v1/runs", tokens.get(role), runBody(mainTf, variables));
    assertThat(run.status()).as(run.body()).isEqualTo(201);
    return run.json("/id");
  }

  /** The run once it is terminal, read with the role's token. */
  private Response awaitEnd(String run, String role) throws Exception {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> call("GET", "/api/v1/runs/" + run, tokens.get(role), null).json("/terminal"),
            "true"::equals);
    return call("GET", "/api/v1/runs/" + run, tokens.get(role), null);
  }

  private String get(String role, String path) throws Exception {
    Response r = call("GET", path, tokens.get(role), null);
    assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(200);
    return r.body();
  }

  /** The CLI as the role, in a directory holding {@code mainTf}. */
  private CliResult cli(String role, String mainTf, String... args) throws Exception {
    return stack.cliWith(
        stack.configDir(workspace + "-" + role, mainTf),
        Map.of("STAGECRAFT_ADDR", stack.plannerUrl(), "STAGECRAFT_TOKEN", tokens.get(role)),
        null,
        args);
  }

  record Response(int status, String body) {
    String json(String pointer) throws Exception {
      return JSON.readTree(body).at(pointer).asText();
    }
  }

  private Response call(String method, String path, String token, Object body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    b.header("Authorization", "Bearer " + token);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }
}
