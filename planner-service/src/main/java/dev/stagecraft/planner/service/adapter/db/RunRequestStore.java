package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.RunRequestRecorder;
import dev.stagecraft.planner.service.workspace.VariableUse;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.servicekit.http.Json;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each run was requested with ({@code planner.run_requests}), so that a restarted planner can
 * start a run that applied nothing again (docs/runs.md "Restart", docs/adr/0029). The files are
 * kept as a content-addressed configuration version ({@link ConfigurationVersionStore}, sealed at
 * rest with a keyring); variable values are stored only sealed with the secrets keyring (bound to
 * tenant, workspace, run and name), never in clear — without a keyring only their names, and such a
 * run cannot be resumed.
 *
 * <p>Thread-safe (every call takes its own connection). {@link #record} is called on the run's
 * recording lane and never throws: a request not recorded only means the run cannot be resumed.
 */
public final class RunRequestStore implements RunRequestRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(RunRequestStore.class);

  /** What a recorded value is: a variable's, or an environment variable's for local-exec. */
  private static final String VARIABLE = "run-request-variable";

  private static final String ENVIRONMENT = "run-request-environment";

  /**
   * A recorded request.
   *
   * @param variablesComplete false when some variable value was not stored (no keyring) or cannot
   *     be opened (its key left the keyring): the run cannot be resumed
   */
  public record Recorded(
      RunRequest request,
      boolean awaitingApproval,
      String pendingMessage,
      boolean variablesComplete) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final SecretsKeyring secrets;
  private final ConfigurationVersionStore versions;

  public RunRequestStore(
      DataSource dataSource,
      Clock clock,
      SecretsKeyring secrets,
      ConfigurationVersionStore versions) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.secrets = secrets;
    this.versions = versions;
  }

  @Override
  public void record(
      String runId, RunRequest request, boolean awaitingApproval, String pendingMessage) {
    try {
      String version =
          versions.keep(
              request.tenant(),
              new ConfigurationContent(request.files(), request.supportFiles()),
              request.requestedBy() == null ? "unknown" : request.requestedBy());
      Map<String, Object> variables = sealAll(request, runId, VARIABLE, request.variables());
      Map<String, Object> rest = new LinkedHashMap<>();
      rest.put("destroy", request.destroy());
      rest.put("replace", request.replace());
      rest.put("expectedSerial", request.expectedSerial());
      rest.put("expectedDigest", request.expectedDigest());
      rest.put("requestedBy", request.requestedBy());
      rest.put("parallelism", request.parallelism());
      rest.put("coalescingKey", request.coalescingKey());
      rest.put("stepTimeoutSeconds", request.stepTimeoutSeconds());
      rest.put("hclVariables", new TreeSet<>(request.hclVariables()));
      RunRequest.WorkspaceInputs inputs = request.inputs();
      rest.put("sensitiveVariables", new TreeSet<>(inputs.sensitiveVariables()));
      rest.put("environment", sealAll(request, runId, ENVIRONMENT, inputs.environment()));
      rest.put("sensitiveEnvironment", new TreeSet<>(inputs.sensitiveEnvironment()));
      rest.put("sourceFailure", inputs.sourceFailure());
      rest.put("variableUses", inputs.uses());
      rest.put("awaitingApproval", awaitingApproval);
      rest.put("pendingMessage", pendingMessage);
      try (Connection c = dataSource.getConnection()) {
        Sql.update(
            c,
            "INSERT INTO planner.run_requests (tenant, run_id, workspace, configuration_version,"
                + " variables, request, recorded_at) VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)"
                + " ON CONFLICT DO NOTHING",
            request.tenant(),
            runId,
            request.workspace(),
            version,
            Json.write(variables),
            Json.write(rest),
            clock.instant());
      }
    } catch (SQLException | RuntimeException e) {
      // the run goes on; it only cannot be resumed after a restart
      LOG.warn("could not record the request of run {}: {}", runId, e.toString());
    }
  }

  /**
   * Whether the run's request was recorded as awaiting approval (its workspace did not auto-apply),
   * without opening the request; empty when no request of the run is recorded.
   */
  public Optional<Boolean> awaitedApproval(String tenant, String runId) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT (request->>'awaitingApproval')::boolean FROM planner.run_requests"
                    + " WHERE tenant = ? AND run_id = ?",
                tenant,
                runId);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(rs.getBoolean(1)) : Optional.empty();
    }
  }

  /**
   * The request a run of this tenant was recorded with, opened: files from its configuration
   * version, variable values unsealed.
   */
  public Optional<Recorded> find(String tenant, String runId) throws SQLException {
    String workspace;
    String version;
    String variablesJson;
    String restJson;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT workspace, configuration_version, variables::text, request::text"
                    + " FROM planner.run_requests WHERE tenant = ? AND run_id = ?",
                tenant,
                runId);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      workspace = rs.getString(1);
      version = rs.getString(2);
      variablesJson = rs.getString(3);
      restJson = rs.getString(4);
    }
    Optional<ConfigurationVersionStore.StoredVersion> stored = versions.find(tenant, version);
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    JsonNode rest = Json.object(restJson);
    OpenedVariables opened =
        openAll(tenant, workspace, runId, VARIABLE, Json.object(variablesJson));
    OpenedVariables environment =
        openAll(tenant, workspace, runId, ENVIRONMENT, rest.path("environment"));
    List<String> replace = new ArrayList<>();
    rest.path("replace").forEach(n -> replace.add(n.asText()));
    RunRequest request =
        new RunRequest(
            tenant,
            workspace,
            stored.get().content().files(),
            stored.get().content().supportFiles(),
            opened.values(),
            rest.path("destroy").asBoolean(false),
            replace,
            rest.path("expectedSerial").isNumber() ? rest.path("expectedSerial").asLong() : null,
            text(rest, "expectedDigest"),
            text(rest, "requestedBy"),
            rest.path("parallelism").asInt(10),
            text(rest, "coalescingKey"),
            // requests recorded before step timeouts existed get the default
            rest.path("stepTimeoutSeconds").asInt(RunRequest.DEFAULT_STEP_TIMEOUT_SECONDS));
    Set<String> hcl = new HashSet<>();
    rest.path("hclVariables").forEach(n -> hcl.add(n.asText()));
    request =
        request
            .withHclVariables(hcl)
            .withInputs(
                new RunRequest.WorkspaceInputs(
                    names(rest.path("sensitiveVariables")),
                    environment.values(),
                    names(rest.path("sensitiveEnvironment")),
                    text(rest, "sourceFailure"),
                    uses(rest.path("variableUses"))));
    return Optional.of(
        new Recorded(
            request,
            rest.path("awaitingApproval").asBoolean(false),
            text(rest, "pendingMessage"),
            opened.complete() && environment.complete()));
  }

  /** A request's variable values, opened; {@code complete} false when some could not be. */
  private record OpenedVariables(Map<String, String> values, boolean complete) {}

  /**
   * Opens the sealed values of a recorded request ({@code sealedByName}: its variables or its
   * environment, {@code kind} saying which).
   */
  private OpenedVariables openAll(
      String tenant, String workspace, String runId, String kind, JsonNode sealedByName) {
    Map<String, String> variables = new LinkedHashMap<>();
    boolean complete = true;
    var fields = sealedByName.fields();
    while (fields.hasNext()) {
      var field = fields.next();
      JsonNode sealed = field.getValue().path("sealed");
      if (sealed.isMissingNode() || !secrets.canSeal()) {
        complete = false;
        continue;
      }
      try {
        SealedBox box =
            new SealedBox(
                sealed.path("alg").asText(),
                sealed.path("kid").asText(),
                sealed.path("nonce").asText(),
                sealed.path("ciphertext").asText());
        variables.put(
            field.getKey(),
            new String(
                secrets.open(
                    box,
                    SecretsKeyring.associatedData(kind, tenant, workspace, runId, field.getKey())),
                StandardCharsets.UTF_8));
      } catch (Exception e) {
        complete = false;
      }
    }
    return new OpenedVariables(variables, complete);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.path(field);
    return v.isNull() || v.isMissingNode() ? null : v.asText();
  }

  /** Each value sealed (name → {"sealed": box}), or name → null without a keyring. */
  private Map<String, Object> sealAll(
      RunRequest request, String runId, String kind, Map<String, String> values) {
    Map<String, Object> out = new LinkedHashMap<>();
    values.forEach(
        (name, value) ->
            out.put(
                name,
                secrets.canSeal() && value != null
                    ? Map.of(
                        "sealed",
                        secrets.seal(
                            value.getBytes(StandardCharsets.UTF_8),
                            SecretsKeyring.associatedData(
                                kind, request.tenant(), request.workspace(), runId, name)))
                    : null));
    return out;
  }

  private static List<VariableUse> uses(JsonNode array) {
    List<VariableUse> uses = new ArrayList<>();
    array.forEach(
        u ->
            uses.add(
                new VariableUse(
                    text(u, "key"),
                    text(u, "category"),
                    text(u, "source"),
                    u.path("sensitive").asBoolean(false))));
    return uses;
  }

  private static Set<String> names(JsonNode array) {
    Set<String> names = new HashSet<>();
    array.forEach(n -> names.add(n.asText()));
    return names;
  }
}
