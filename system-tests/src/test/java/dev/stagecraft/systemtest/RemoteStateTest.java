package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code data "terraform_remote_state"} over the real stack (docs/planning.md "Remote state", ADR
 * 0063): a run of workspace B reads the outputs of workspace A of its tenant, by name ({@code
 * backend = "stagecraft"}) and by its Terraform HTTP backend address ({@code backend = "http"}),
 * with the run's own state credential; a sensitive output is used but never shown; another tenant's
 * workspace cannot be read, by name or by any address, and an address outside this Stagecraft is
 * refused without being requested.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteStateTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  SharedStack stack;
  String suffix = UUID.randomUUID().toString().substring(0, 8);
  String tenant = "rs-a-" + suffix;
  String otherTenant = "rs-b-" + suffix;
  String network = "network-" + suffix;
  String secret = "db-pw-" + suffix;
  String otherMarker = "other-tenant-" + suffix;
  String admin;
  String reader;
  String otherAdmin;
  String stateBase;

  @BeforeAll
  void aNetworkWorkspaceWithOutputsInEachTenant() throws Exception {
    stack = SharedStack.get();
    admin = createTenant(tenant);
    otherAdmin = createTenant(otherTenant);
    reader = call("POST", "/api/v1/tokens", admin, Map.of("role", "reader")).json("/token");
    String discovered = call("GET", "/.well-known/stagecraft.json", null, null).json("/state");
    stateBase = discovered.replaceAll("/api/v1/?$", "");
    push(
        admin,
        network,
        Map.of(
            "vpc_id", output("vpc-" + suffix, "string", false),
            "replicas", output(2, "number", false),
            "db_password", output(secret, "string", true)));
    // the other tenant has a workspace of the same name, and one only it has
    push(otherAdmin, network, Map.of("vpc_id", output(otherMarker, "string", false)));
    push(otherAdmin, "only-" + suffix, Map.of("vpc_id", output(otherMarker, "string", false)));
  }

  @Test
  void aRunReadsTheOutputsOfAnotherWorkspaceOfItsTenantByNameAndByAddress() throws Exception {
    String ws = "app-" + suffix;
    Response run =
        startRun(
            ws,
            """
            data "terraform_remote_state" "net" {
              backend = "stagecraft"
              config  = { workspace = "%s" }
            }
            data "terraform_remote_state" "net_http" {
              backend = "http"
              config  = { address = "%s/tf/v1/workspaces/%s/state", username = "stagecraft" }
            }
            resource "terraform_data" "app" {
              count = data.terraform_remote_state.net.outputs.replicas
              input = "${data.terraform_remote_state.net_http.outputs.vpc_id}/${count.index}"
            }
            resource "stateful_provisioning" "db" {
              state_key = "v1"
              triggers  = { pw = data.terraform_remote_state.net.outputs.db_password }
            }
            """
                .formatted(network, stateBase, network));
    JsonNode done = awaitEnd(run.json("/id"));
    assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("applied");
    assertThat(done.toString()).doesNotContain(secret);
    String state = get(stateBase + "/api/v1/workspaces/" + ws + "/state", admin).body();
    JsonNode app = JSON.readTree(state).at("/resources");
    List<String> inputs = app.findValues("input").stream().map(JsonNode::asText).sorted().toList();
    assertThat(inputs).containsExactly("vpc-" + suffix + "/0", "vpc-" + suffix + "/1");
    // the run's plan, events and logs never show the sensitive output
    for (String path : List.of("", "/events")) {
      Response r = call("GET", "/api/v1/runs/" + run.json("/id") + path, admin, null);
      assertThat(r.status()).as(path).isEqualTo(200);
      assertThat(r.body()).as(path).doesNotContain(secret);
    }
  }

  @Test
  void aSpeculativePlanReadsThemWithTheCallersToken() throws Exception {
    Response plan =
        call(
            "POST",
            "/api/v1/plans",
            reader,
            Map.of(
                "workspace",
                "plan-" + suffix,
                "files",
                Map.of(
                    "main.tf",
                    """
                    data "terraform_remote_state" "net" {
                      backend   = "stagecraft"
                      workspace = "%s"
                    }
                    resource "terraform_data" "x" {
                      input = data.terraform_remote_state.net.outputs.vpc_id
                    }
                    """
                        .formatted(network))));
    assertThat(plan.status()).as(plan.body()).isEqualTo(200);
    assertThat(plan.json("/rendered")).contains("vpc-" + suffix).doesNotContain(otherMarker);
  }

  @Test
  void anotherTenantsWorkspaceIsNeverRead() throws Exception {
    // by name: the run's tenant has no such workspace, whatever another tenant has
    Response run =
        startRun(
            "cross-" + suffix,
            """
            data "terraform_remote_state" "net" {
              backend = "stagecraft"
              config  = { workspace = "only-%s" }
            }
            output "v" { value = data.terraform_remote_state.net.outputs.vpc_id }
            """
                .formatted(suffix));
    JsonNode errored = awaitEnd(run.json("/id"));
    assertThat(errored.get("status").asText()).isEqualTo("errored");
    assertThat(errored.get("message").asText())
        .contains("Unable to find remote state")
        .contains("main.tf:1:1")
        .contains("workspace \"only-" + suffix + "\" of this tenant")
        .doesNotContain(otherMarker);
    // nor by naming the tenant in another route of the state service, nor by settings
    Response internal =
        plan(
            "data \"terraform_remote_state\" \"net\" {\n"
                + "  backend = \"http\"\n"
                + "  config  = { address = \"%s/internal/v1/tenants/%s/workspaces/only-%s/state\" }\n"
                    .formatted(stateBase, otherTenant, suffix)
                + "}\n");
    assertThat(internal.status()).isEqualTo(422);
    assertThat(internal.body())
        .contains("Remote state cannot be read")
        .contains("main.tf:1:1")
        .contains("is not this Stagecraft's state address of a workspace")
        .doesNotContain(otherMarker);
    Response setting =
        plan(
            """
            data "terraform_remote_state" "net" {
              backend = "stagecraft"
              config  = { workspace = "only-%s", tenant = "%s" }
            }
            """
                .formatted(suffix, otherTenant));
    assertThat(setting.status()).isEqualTo(422);
    assertThat(setting.body())
        .contains("Unsupported remote state setting")
        .contains("main.tf:3:13");
  }

  @Test
  void anAddressOutsideThisStagecraftIsRefusedWithoutARequest() throws Exception {
    try (java.net.ServerSocket trap = new java.net.ServerSocket(0)) {
      trap.setSoTimeout(1);
      Response r =
          plan(
              """
              data "terraform_remote_state" "net" {
                backend = "http"
                config  = { address = "http://127.0.0.1:%d/tf/v1/workspaces/%s/state" }
              }
              """
                  .formatted(trap.getLocalPort(), network));
      assertThat(r.status()).isEqualTo(422);
      assertThat(r.body())
          .contains("Remote state cannot be read")
          .contains("Nothing was requested from that address");
      // the planner never connected to it
      assertThat(accepted(trap)).isFalse();
    }
  }

  private static boolean accepted(java.net.ServerSocket socket) {
    try (var s = socket.accept()) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ helpers

  private static Map<String, Object> output(Object value, String type, boolean sensitive) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("value", value);
    o.put("type", type);
    if (sensitive) {
      o.put("sensitive", true);
    }
    return o;
  }

  /** A Terraform v4 state with these outputs, pushed over the HTTP backend. */
  private void push(String token, String ws, Map<String, Object> outputs) throws Exception {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 4);
    doc.put("terraform_version", "1.9.0");
    doc.put("serial", 1);
    doc.put("lineage", UUID.randomUUID().toString());
    doc.put("outputs", outputs);
    doc.put("resources", List.of());
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stateBase + "/tf/v1/workspaces/" + ws + "/state"))
                .header("Authorization", basic(token))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(doc)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private static String basic(String token) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString(("stagecraft:" + token).getBytes(StandardCharsets.UTF_8));
  }

  private Response plan(String config) throws Exception {
    return call(
        "POST",
        "/api/v1/plans",
        admin,
        Map.of("workspace", "plan-" + suffix, "files", Map.of("main.tf", config)));
  }

  private Response startRun(String ws, String config) throws Exception {
    assertThat(
            call("POST", "/api/v1/workspaces", admin, Map.of("name", ws, "autoApply", true))
                .status())
        .isEqualTo(201);
    Response run =
        call(
            "POST",
            "/api/v1/runs",
            admin,
            Map.of("workspace", ws, "files", Map.of("main.tf", config)));
    assertThat(run.status()).as(run.body()).isEqualTo(201);
    return run;
  }

  private JsonNode awaitEnd(String runId) throws Exception {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> call("GET", "/api/v1/runs/" + runId, admin, null).json("/terminal"),
            "true"::equals);
    return JSON.readTree(call("GET", "/api/v1/runs/" + runId, admin, null).body());
  }

  private String createTenant(String name) throws Exception {
    Response r = call("POST", "/api/v1/tenants", stack.token(), Map.of("name", name));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json("/token");
  }

  record Response(int status, String body) {
    String json(String pointer) throws Exception {
      return JSON.readTree(body).at(pointer).asText();
    }
  }

  private Response get(String url, String token) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
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
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }
}
