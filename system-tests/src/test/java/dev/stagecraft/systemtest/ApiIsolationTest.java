package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tenant isolation and roles over the real stack, for every public endpoint the planner's OpenAPI
 * document names (so a new endpoint is covered as soon as it exists): another tenant's token gets
 * 404 for tenant A's resources (403 where the resource has no tenant: tenants), a reader token gets
 * 403 wherever a deployer or admin is needed, and no response ever carries tenant A's data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiIsolationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** Non-GET routes a reader may call: they change nothing or are not authorized by tokens. */
  private static final Set<String> OPEN_TO_READERS =
      Set.of(
          "POST /api/v1/plans", // a speculative plan changes nothing
          "POST /api/v1/hooks/run-requests", // authenticated by its HMAC signature, not a token
          "POST /api/v1/hooks/push/{tenant}"); // authenticated by the forge's signature

  /** Routes authenticated by a signature, not a token: 401 for any token without one. */
  private static final Set<String> SIGNED = Set.of("POST /api/v1/hooks/push/{tenant}");

  /**
   * Routes that name a resource the caller creates in its own tenant when it has none of that name
   * (docs/workspaces.md: a PUT of a variable creates the workspace). Another tenant gets 404 when
   * the request is valid, or 400 when it is not; tenant A's resource is never touched.
   */
  private static final Set<String> CREATE_BY_NAME =
      Set.of("PUT /api/v1/workspaces/{ws}/variables/{key}");

  SharedStack stack;
  String suffix = UUID.randomUUID().toString().substring(0, 8);
  String tenantA = "iso-a-" + suffix;
  String tenantB = "iso-b-" + suffix;
  String workspace = "iso-ws-" + suffix;
  String marker = "iso-marker-" + suffix; // in tenant A's configuration and state only
  String variableSet = "iso-set-" + suffix;
  String adminA;
  String readerA;
  String adminB;
  String runId;
  String planDigest;
  String configurationVersion;
  String tokenIdA;
  Map<String, String> openApi;

  @BeforeAll
  void tenantAWithAWorkspaceARunAConfigurationAndTokens() throws Exception {
    stack = SharedStack.get();
    adminA = createTenant(tenantA);
    adminB = createTenant(tenantB);
    readerA = call("POST", "/api/v1/tokens", adminA, Map.of("role", "reader")).json("/token");
    JsonNode tokens = JSON.readTree(call("GET", "/api/v1/tokens", adminA, null).body());
    tokenIdA = tokens.at("/tokens/0/id").asText();
    assertThat(tokenIdA).hasSize(16);
    assertThat(
            call("POST", "/api/v1/workspaces", adminA, Map.of("name", workspace, "autoApply", true))
                .status())
        .isEqualTo(201);
    Response cv =
        call(
            "POST",
            "/api/v1/configuration-versions",
            adminA,
            Map.of(
                "files",
                Map.of(
                    "main.tf",
                    "variable \"db_password\" {\n  sensitive = true\n}\n"
                        + "resource \"stateful_provisioning\" \"app\" {\n  state_key = \""
                        + marker
                        + "\"\n}\n")));
    assertThat(cv.status()).as(cv.body()).isEqualTo(201);
    configurationVersion = cv.json("/id");
    Response run =
        call(
            "POST",
            "/api/v1/runs",
            adminA,
            Map.of(
                "workspace",
                workspace,
                "configurationVersion",
                configurationVersion,
                "message",
                "isolation " + marker,
                "variables",
                Map.of("db_password", "pw-" + marker)));
    assertThat(run.status()).as(run.body()).isEqualTo(201);
    runId = run.json("/id");
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> call("GET", "/api/v1/runs/" + runId, adminA, null).json("/terminal"),
            "true"::equals);
    Response done = call("GET", "/api/v1/runs/" + runId, adminA, null);
    assertThat(done.json("/status")).as(done.body()).isEqualTo("applied");
    planDigest = done.json("/planDigest");
    Response variable =
        call(
            "PUT",
            "/api/v1/workspaces/" + workspace + "/variables/db_password",
            adminA,
            Map.of("value", "var-" + marker));
    assertThat(variable.status()).as(variable.body()).isEqualTo(200);
    Response set =
        call(
            "POST",
            "/api/v1/variable-sets",
            adminA,
            Map.of("name", variableSet, "description", ""));
    assertThat(set.status()).as(set.body()).isEqualTo(201);
    assertThat(
            call(
                    "PUT",
                    "/api/v1/variable-sets/" + variableSet + "/variables/db_password",
                    adminA,
                    Map.of("value", "set-" + marker))
                .status())
        .isEqualTo(200);
    assertThat(
            call(
                    "PUT",
                    "/api/v1/variable-sets/" + variableSet + "/workspaces/" + workspace,
                    adminA,
                    null)
                .status())
        .isEqualTo(200);
    openApi = routes();
  }

  private String createTenant(String name) throws Exception {
    Response r = call("POST", "/api/v1/tenants", stack.token(), Map.of("name", name));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json("/token");
  }

  /** "METHOD /path" → path of every route in the served OpenAPI document. */
  private Map<String, String> routes() throws Exception {
    Response doc = call("GET", "/api/v1/openapi.yml", null, null);
    assertThat(doc.status()).isEqualTo(200);
    Map<String, String> routes = new LinkedHashMap<>();
    String path = null;
    Matcher m =
        Pattern.compile("(?m)^  (/\\S*):$|^    (get|post|put|patch|delete):$").matcher(doc.body());
    while (m.find()) {
      if (m.group(1) != null) {
        path = m.group(1);
      } else {
        routes.put(m.group(2).toUpperCase() + " " + path, path);
      }
    }
    assertThat(routes)
        .containsKeys(
            "GET /api/v1/runs/{id}",
            "POST /api/v1/runs/{id}/approve",
            "GET /api/v1/configuration-versions/{id}",
            "POST /api/v1/tenants",
            "GET /api/v1/workspaces/{ws}/state-versions");
    // the console's pages are for people (their own tests check roles), not API routes
    assertThat(routes.values()).noneMatch(p -> p.startsWith("/console"));
    return routes;
  }

  /** The route's path with tenant A's resources in its variables. */
  private String concrete(String path) {
    String id =
        path.startsWith("/api/v1/runs/")
            ? runId
            : path.startsWith("/api/v1/configuration-versions/")
                ? configurationVersion
                : path.startsWith("/api/v1/tokens/") ? tokenIdA : "unknown-id";
    return path.replace("{ws}", workspace)
        .replace("{id}", id)
        .replace("{name}", variableSet)
        .replace("{key}", "db_password")
        .replace("{tenant}", tenantA);
  }

  /** A body naming tenant A's resources, whatever the route reads from it. */
  private Map<String, Object> bodyFor() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workspace", workspace);
    // a name of the caller's own: a workspace or tenant created by this call is its own
    body.put("name", "own-" + suffix);
    body.put("configurationVersion", configurationVersion);
    body.put("planDigest", planDigest);
    body.put("address", "stateful_provisioning.app");
    body.put("role", "reader");
    body.put("autoApply", false);
    body.put("host", "127.0.0.1");
    body.put("publicKey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB3qv0yE2S0fH7nO7c9yM6cJQpT2p9Tt");
    return body;
  }

  private List<String> aData() {
    return List.of(marker, runId, configurationVersion, tokenIdA, tenantA, planDigest);
  }

  @Test
  void anotherTenantsTokenGetsNotFoundForEveryResourceOfTenantAAndNeverItsData() throws Exception {
    List<String> checked = new ArrayList<>();
    for (Map.Entry<String, String> route : openApi.entrySet()) {
      String method = route.getKey().substring(0, route.getKey().indexOf(' '));
      String path = concrete(route.getValue());
      Map<String, Object> body = method.equals("GET") ? null : bodyFor();
      Response r = call(method, path, adminB, body);
      String what = route.getKey() + " as tenant B → " + r.status() + " " + r.body();
      String sent = path + (body == null ? "" : JSON.writeValueAsString(body));
      for (String data : aData()) {
        if (!sent.contains(data)) { // an error may name what the caller sent, nothing else
          assertThat(r.body()).as(what).doesNotContain(data);
        }
      }
      assertThat(r.status()).as(what).isLessThan(500);
      if (SIGNED.contains(route.getKey())) {
        assertThat(r.status()).as(what).isEqualTo(401);
      } else if (CREATE_BY_NAME.contains(route.getKey())) {
        assertThat(r.status()).as(what).isIn(400, 404);
      } else if (route.getValue().contains("{")) {
        // a resource of tenant A: not found for B, or forbidden where it has no tenant
        assertThat(r.status())
            .as(what)
            .isIn(route.getValue().startsWith("/api/v1/tenants") ? 403 : 404, 404);
      } else if (route.getKey().startsWith("GET /api/v1/tenants")
          || route.getKey().startsWith("POST /api/v1/tenants")) {
        assertThat(r.status()).as(what).isEqualTo(403);
      }
      checked.add(route.getKey());
    }
    assertThat(checked).hasSizeGreaterThanOrEqualTo(20);
    // and tenant A's run is untouched by all of that
    Response run = call("GET", "/api/v1/runs/" + runId, adminA, null);
    assertThat(run.json("/status")).isEqualTo("applied");
    assertThat(call("GET", "/api/v1/workspaces/" + workspace, adminA, null).json("/autoApply"))
        .isEqualTo("true");
    // nor are its variables and variable sets
    assertThat(
            call("GET", "/api/v1/workspaces/" + workspace + "/variables", adminA, null)
                .json("/variables/0/value"))
        .isEqualTo("var-" + marker);
    assertThat(
            call("GET", "/api/v1/variable-sets/" + variableSet, adminA, null).json("/workspaces/0"))
        .isEqualTo(workspace);
    assertThat(call("GET", "/api/v1/variable-sets", adminB, null).body())
        .doesNotContain(variableSet)
        .doesNotContain(marker);
  }

  @Test
  void aReaderTokenIsRefusedWhereverADeployerOrAdminIsNeeded() throws Exception {
    List<String> checked = new ArrayList<>();
    for (Map.Entry<String, String> route : openApi.entrySet()) {
      if (route.getKey().startsWith("GET ") || OPEN_TO_READERS.contains(route.getKey())) {
        continue;
      }
      String method = route.getKey().substring(0, route.getKey().indexOf(' '));
      Response r = call(method, concrete(route.getValue()), readerA, bodyFor());
      assertThat(r.status()).as(route.getKey() + " as reader → " + r.body()).isEqualTo(403);
      assertThat(r.contentType()).startsWith("application/problem+json");
      checked.add(route.getKey());
    }
    assertThat(checked)
        .contains(
            "POST /api/v1/runs",
            "POST /api/v1/runs/{id}/approve",
            "POST /api/v1/runs/{id}/discard",
            "POST /api/v1/runs/{id}/cancel",
            "POST /api/v1/configuration-versions",
            "POST /api/v1/tokens",
            "PATCH /api/v1/workspaces/{ws}");
    // admin-only reads are refused to readers too
    assertThat(call("GET", "/api/v1/tokens", readerA, null).status()).isEqualTo(403);
    assertThat(call("GET", "/api/v1/tenants", readerA, null).status()).isEqualTo(403);
    // and nothing changed
    assertThat(call("GET", "/api/v1/workspaces/" + workspace, adminA, null).json("/autoApply"))
        .isEqualTo("true");
  }

  @Test
  void runsListFiltersAndPagesAndAReadOfStateVersionsPassesThrough() throws Exception {
    Response list =
        call(
            "GET", "/api/v1/runs?workspace=" + workspace + "&status=applied&size=1", readerA, null);
    assertThat(list.status()).isEqualTo(200);
    assertThat(JSON.readTree(list.body()).get(0).get("id").asText()).isEqualTo(runId);
    Response none =
        call("GET", "/api/v1/runs?workspace=" + workspace + "&status=errored", readerA, null);
    assertThat(JSON.readTree(none.body())).isEmpty();
    Response versions =
        call("GET", "/api/v1/workspaces/" + workspace + "/state-versions", readerA, null);
    assertThat(versions.status()).as(versions.body()).isEqualTo(200);
    assertThat(JSON.readTree(versions.body()).get(0).get("runId").asText()).isEqualTo(runId);
    Response run = call("GET", "/api/v1/runs/" + runId, readerA, null);
    assertThat(run.json("/configurationVersion")).isEqualTo(configurationVersion);
    assertThat(run.json("/requestMessage")).isEqualTo("isolation " + marker);
    assertThat(JSON.readTree(run.body()).get("variables").toString())
        .contains("db_password")
        .doesNotContain(marker);
  }

  record Response(int status, String body, String contentType) {
    String json(String pointer) throws Exception {
      return JSON.readTree(body).at(pointer).asText();
    }
  }

  Response call(String method, String path, String token, Object body) throws Exception {
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
    return new Response(
        r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(""));
  }
}
