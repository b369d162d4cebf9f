package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.planner.service.run.journal.RunObserver;
import dev.stagecraft.planner.service.source.RunSource;
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
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner's record of runs ({@code planner.runs}, {@code planner.run_transitions}). The
 * coordinator drives runs in memory and tells this store of every transition; reads of runs (get,
 * list) come from here, so they survive a restart of the planner.
 *
 * <p>Thread-safe (every call takes its own connection). The coordinator calls {@link #transitioned}
 * on the run's recording lane, in sequence order and off the run's path (docs/adr/ 0025); the store
 * does not rely on that order: the run's row keeps the transition with the highest sequence, the
 * transitions table keeps them all. A transition is written in one durable transaction; a crash of
 * the planner may lose the records still queued (never the first one of a run accepted over REST:
 * the POST answers after it is written). A run's record is written only while this instance owns
 * the run ({@code instance_id}): once another instance adopted it (docs/adr/0034), a late record of
 * this one changes nothing.
 */
public final class RunStore implements RunObserver {
  private static final Logger LOG = LoggerFactory.getLogger(RunStore.class);
  private static final String TERMINAL =
      Arrays.stream(RunStatus.values())
          .filter(RunStatus::isTerminal)
          .map(s -> "'" + s.wireName() + "'")
          .collect(Collectors.joining(", "));

  /**
   * What the API shows of a recorded run (variables: names only, never values).
   *
   * @param message the message of the latest transition (as the live run summary has it)
   * @param requestMessage the message the run was requested with
   * @param traceId the trace id of the run's trace (docs/adr/0083); null when tracing was off
   */
  public record RunRecord(
      String id,
      String tenant,
      String workspace,
      String status,
      boolean terminal,
      String message,
      String requestMessage,
      String planDigest,
      Instant createdAt,
      Instant updatedAt,
      String requestedBy,
      String approvedBy,
      Instant approvedAt,
      String configurationVersion,
      List<String> variables,
      RunSource source,
      List<VariableUse> variableSources,
      Map<String, Long> variableVersions,
      String traceId) {}

  /** A recorded transition. */
  public record Transition(long sequence, String status, String message, Instant at) {}

  /** One page of runs, newest first; {@code nextCursor} is null on the last page. */
  public record Page(List<RunRecord> items, String nextCursor) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final String instanceId;
  private final SecretsKeyring secrets;
  private volatile Function<String, String> traceParents = id -> null;

  public RunStore(DataSource dataSource, Clock clock, String instanceId, SecretsKeyring secrets) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.instanceId = instanceId;
    this.secrets = secrets;
  }

  /**
   * Records each run's trace parent as {@code traceParents} gives it (run id to W3C traceparent;
   * null: none), docs/adr/0083. Call once, before runs start.
   */
  public RunStore withTraceParents(Function<String, String> traceParents) {
    this.traceParents = traceParents;
    return this;
  }

  /** The traceparent recorded for a run (any tenant), or null. */
  public String traceParent(String runId) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(c, "SELECT trace_parent FROM planner.runs WHERE id = ?", runId);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  @Override
  public void transitioned(Run run, long sequence, RunStatus status, String message, Instant at) {
    Run.RunSummary summary = run.summary();
    // sent with the applying transition only: it is written once (ADR 0051), so the run's later
    // transitions do not render the plan's change documents again
    Map<String, String> approvedChanges =
        status == RunStatus.APPLYING ? run.approvedChanges() : null;
    try (Connection c = dataSource.getConnection()) {
      // one transaction for both rows, committed durably: it is off the run's path
      // (docs/adr/0025), so the WAL flush costs the run nothing
      c.setAutoCommit(false);
      Sql.update(
          c,
          "INSERT INTO planner.runs (tenant, id, workspace, status, status_message, plan_digest,"
              + " created_at, updated_at, requested_by, instance_id, last_sequence,"
              + " approved_changes, trace_parent)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)"
              + " ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
              + " status_message = excluded.status_message,"
              + " plan_digest = coalesce(excluded.plan_digest, planner.runs.plan_digest),"
              // written once, with the applying transition of an approved plan (ADR 0051)
              + " approved_changes = coalesce(planner.runs.approved_changes,"
              + " excluded.approved_changes),"
              + " trace_parent = coalesce(planner.runs.trace_parent, excluded.trace_parent),"
              + " updated_at = excluded.updated_at, last_sequence = excluded.last_sequence"
              + " WHERE planner.runs.last_sequence < excluded.last_sequence"
              // a run another instance adopted is no longer this one's to record (ADR 0034)
              + " AND planner.runs.instance_id = excluded.instance_id",
          summary.tenant(),
          run.id(),
          summary.workspace(),
          status.wireName(),
          message,
          summary.planDigest(),
          summary.createdAt(),
          at,
          run.request().requestedBy(),
          instanceId,
          sequence,
          approvedChanges == null ? null : documentsJson(approvedChanges),
          traceParents.apply(run.id()));
      Sql.update(
          c,
          "INSERT INTO planner.run_transitions (tenant, run_id, sequence, status, message, at)"
              + " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM planner.runs"
              + " WHERE id = ? AND instance_id = ?) ON CONFLICT DO NOTHING",
          summary.tenant(),
          run.id(),
          sequence,
          status.wireName(),
          message,
          at,
          run.id(),
          instanceId);
      c.commit();
    } catch (SQLException | RuntimeException e) {
      // the run goes on; only its record lags (reads then show an older status)
      LOG.warn(
          "could not record transition {} of run {} to {}: {}",
          sequence,
          run.id(),
          status.wireName(),
          e.toString());
    }
  }

  /**
   * Adds what only the API knows to a run just started: the requester's message, the configuration
   * version and the variables. Variable values are stored sealed with the secrets keyring (bound to
   * tenant, workspace and run); without a keyring only their names are stored (docs/runs.md).
   */
  public void describe(
      String tenant,
      String runId,
      String workspace,
      Submission.Description description,
      Map<String, String> variables)
      throws SQLException {
    String message = description.message();
    String configurationVersion = description.configurationVersion();
    Map<String, Object> stored = new LinkedHashMap<>();
    if (variables != null) {
      variables.forEach(
          (name, value) -> {
            if (secrets.canSeal() && value != null) {
              SealedBox box =
                  secrets.seal(
                      value.getBytes(StandardCharsets.UTF_8),
                      SecretsKeyring.associatedData(
                          "run-variable", tenant, workspace, runId, name));
              stored.put(name, Map.of("sealed", box));
            } else {
              stored.put(name, null);
            }
          });
    }
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.runs SET message = ?, configuration_version = ?, variables = ?::jsonb,"
              + " source = ?::jsonb, variable_sources = ?::jsonb WHERE tenant = ? AND id = ?",
          message,
          configurationVersion,
          Json.write(stored),
          description.source() == null ? null : Json.write(description.source()),
          Json.write(
              Map.of(
                  "variables",
                  description.variables().stream().map(VariableUse::of).toList(),
                  "versions",
                  description.variableVersions())),
          tenant,
          runId);
    }
  }

  /** Records who approved the run's plan, and when. */
  public void approved(String tenant, String runId, String approvedBy) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.runs SET approved_by = ?, approved_at = ? WHERE tenant = ? AND id = ?",
          approvedBy,
          clock.instant(),
          tenant,
          runId);
    }
  }

  /**
   * A run this planner instance (or one whose runs it adopted, docs/adr/0034) was driving when it
   * stopped, as recorded (docs/adr/0029).
   *
   * @param plannedAt when its latest {@code planned} transition was recorded, or null
   * @param approvedChanges what each change of the approved plan it applied does ({@link
   *     Run#approvedChanges}, ADR 0051), or null
   */
  public record UnfinishedRun(
      String id,
      String tenant,
      String workspace,
      RunStatus status,
      long lastSequence,
      Instant createdAt,
      String planDigest,
      Instant plannedAt,
      Map<String, String> approvedChanges) {}

  private static final String UNFINISHED_COLUMNS =
      "r.id, r.tenant, r.workspace, r.status, r.last_sequence, r.created_at, r.plan_digest,"
          + " (SELECT max(t.at) FROM planner.run_transitions t"
          + " WHERE t.run_id = r.id AND t.status = 'planned'), r.approved_changes";

  /**
   * The runs of this planner instance that are not terminal, oldest first (the order they are
   * resumed in). Called once at startup, before any run starts.
   */
  public List<UnfinishedRun> unfinished() throws SQLException {
    List<UnfinishedRun> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT "
                    + UNFINISHED_COLUMNS
                    + " FROM planner.runs r WHERE r.instance_id = ? AND r.status NOT IN ("
                    + TERMINAL
                    + ") ORDER BY r.created_at, r.id",
                instanceId);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(unfinishedRun(rs));
      }
    }
    return out;
  }

  /**
   * Hands every non-terminal run of {@code deadInstance} to {@code adopter}, on {@code c} (the
   * caller's transaction, which has just won the compare-and-set on the dead instance's row: {@link
   * InstanceStore#adopt}), and returns them oldest first. A terminal run is never touched. A run
   * row another transaction moves at the same time is taken by at most one of them (the row lock,
   * then the {@code instance_id} condition checked again).
   */
  static List<UnfinishedRun> adoptRuns(Connection c, String deadInstance, String adopter)
      throws SQLException {
    List<UnfinishedRun> out = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "UPDATE planner.runs r SET instance_id = ? WHERE r.instance_id = ?"
                    + " AND r.status NOT IN ("
                    + TERMINAL
                    + ") RETURNING "
                    + UNFINISHED_COLUMNS,
                adopter,
                deadInstance);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(unfinishedRun(rs));
      }
    }
    out.sort(Comparator.comparing(UnfinishedRun::createdAt).thenComparing(UnfinishedRun::id));
    return out;
  }

  private static UnfinishedRun unfinishedRun(ResultSet rs) throws SQLException {
    return new UnfinishedRun(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        RunStatus.valueOf(rs.getString(4).toUpperCase(Locale.ROOT)),
        rs.getLong(5),
        instant(rs.getTimestamp(6)),
        rs.getString(7),
        instant(rs.getTimestamp(8)),
        documentsByAddress(rs.getString(9)));
  }

  /**
   * The {@code approved_changes} column written: one JSON object, the change documents as its
   * members (readable in SQL), not as strings.
   */
  private static String documentsJson(Map<String, String> documents) {
    Map<String, JsonNode> members = new LinkedHashMap<>();
    documents.forEach((address, document) -> members.put(address, Json.object(document)));
    return Json.write(members);
  }

  /** The {@code approved_changes} column read: address to change document, or null. */
  private static Map<String, String> documentsByAddress(String json) {
    if (json == null) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    Json.object(json).properties().forEach(e -> out.put(e.getKey(), e.getValue().toString()));
    return out;
  }

  /**
   * Ends an unfinished run of this instance {@code errored} with {@code message}, unless it ended
   * meanwhile or another instance adopted it (docs/adr/0034). The transition is numbered {@link
   * RunCoordinator#RESUME_SEQUENCE_GAP} + 1 above the run's last recorded sequence, as a resumed
   * run's next transition is: a crash may have lost the records (not the events) of the last
   * transitions, whose sequences must not be reused. Its journal gets the {@code errored}
   * transition too, the same gap above its last recorded entry, so a log stream of it ends like any
   * run's (docs/adr/0032). The caller announces it ({@link RunCoordinator#announceEnded}).
   *
   * @return the transition's sequence, or empty when nothing was written
   */
  public OptionalLong endUnfinished(UnfinishedRun run, String message) throws SQLException {
    Instant now = clock.instant();
    long sequence = run.lastSequence() + RunCoordinator.RESUME_SEQUENCE_GAP + 1;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      int updated =
          Sql.update(
              c,
              "UPDATE planner.runs SET status = ?, status_message = ?, updated_at = ?,"
                  + " last_sequence = ? WHERE id = ? AND tenant = ? AND last_sequence = ?"
                  + " AND instance_id = ?",
              RunStatus.ERRORED.wireName(),
              message,
              now,
              sequence,
              run.id(),
              run.tenant(),
              run.lastSequence(),
              instanceId);
      if (updated == 1) {
        Sql.update(
            c,
            "INSERT INTO planner.run_transitions (tenant, run_id, sequence, status, message, at)"
                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            run.tenant(),
            run.id(),
            sequence,
            RunStatus.ERRORED.wireName(),
            message,
            now);
        long entry =
            RunJournalStore.lastRecorded(c, run.tenant(), run.id())
                + RunCoordinator.RESUME_SEQUENCE_GAP
                + 1;
        RunJournalStore.insert(
            c,
            instanceId,
            run.tenant(),
            run.id(),
            List.of(
                new RunEvent(
                    entry,
                    now,
                    "status",
                    RunStatus.ERRORED.wireName(),
                    null,
                    null,
                    null,
                    message)));
      }
      c.commit();
      return updated == 1 ? OptionalLong.of(sequence) : OptionalLong.empty();
    }
  }

  /** A run of this tenant. */
  public Optional<RunRecord> find(String tenant, String id) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = Sql.prepare(c, SELECT + " WHERE tenant = ? AND id = ?", tenant, id);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(record(rs)) : Optional.empty();
    }
  }

  /** The transitions of a run of this tenant, in order. */
  public List<Transition> transitions(String tenant, String id) throws SQLException {
    List<Transition> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT sequence, status, message, at FROM planner.run_transitions"
                    + " WHERE tenant = ? AND run_id = ? ORDER BY sequence",
                tenant,
                id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Transition(
                rs.getLong(1), rs.getString(2), rs.getString(3), rs.getTimestamp(4).toInstant()));
      }
    }
    return out;
  }

  /**
   * A page of the tenant's runs, newest first.
   *
   * @param status only runs in this status, or null
   * @param workspace only runs of this workspace, or null
   * @param cursor the {@code nextCursor} of the previous page, or null for the first
   * @param size at most this many ({@link Integer#MAX_VALUE}: all)
   */
  public Page list(String tenant, String status, String workspace, Cursor cursor, int size)
      throws SQLException {
    StringBuilder sql = new StringBuilder(SELECT).append(" WHERE tenant = ?");
    List<Object> args = new ArrayList<>(List.of(tenant));
    if (status != null) {
      sql.append(" AND status = ?");
      args.add(status);
    }
    if (workspace != null) {
      sql.append(" AND workspace = ?");
      args.add(workspace);
    }
    if (cursor != null) {
      sql.append(" AND (created_at, id) < (?, ?)");
      args.add(cursor.createdAt());
      args.add(cursor.id());
    }
    sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
    args.add(size == Integer.MAX_VALUE ? Long.MAX_VALUE : size + 1L);
    List<RunRecord> items = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = Sql.prepare(c, sql.toString(), args.toArray());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        items.add(record(rs));
      }
    }
    String next = null;
    if (size < Integer.MAX_VALUE && items.size() > size) {
      items = items.subList(0, size);
      RunRecord last = items.get(size - 1);
      next = new Cursor(last.createdAt(), last.id()).encode();
    }
    return new Page(List.copyOf(items), next);
  }

  /** The position after a run in the newest-first order: opaque to clients (base64url). */
  public record Cursor(Instant createdAt, String id) {
    public String encode() {
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString((createdAt.toString() + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @throws IllegalArgumentException when {@code text} is not a cursor this store made
     */
    public static Cursor decode(String text) {
      try {
        String s = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
        int bar = s.indexOf('|');
        return new Cursor(Instant.parse(s.substring(0, bar)), s.substring(bar + 1));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "cursor '" + text + "' is not valid: pass the nextCursor of the previous page");
      }
    }
  }

  private static final String SELECT =
      "SELECT id, tenant, workspace, status, status_message, message, plan_digest, created_at,"
          + " updated_at, requested_by, approved_by, approved_at, configuration_version,"
          + " variables::text, source::text, variable_sources::text, trace_parent"
          + " FROM planner.runs";

  private static RunRecord record(ResultSet rs) throws SQLException {
    String status = rs.getString(4);
    JsonNode variables = Json.object(rs.getString(14));
    List<String> names = new ArrayList<>();
    variables.fieldNames().forEachRemaining(names::add);
    return new RunRecord(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        status,
        RunStatus.valueOf(status.toUpperCase(Locale.ROOT)).isTerminal(),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
        instant(rs.getTimestamp(8)),
        instant(rs.getTimestamp(9)),
        rs.getString(10),
        rs.getString(11),
        instant(rs.getTimestamp(12)),
        rs.getString(13),
        names,
        source(rs.getString(15)),
        uses(rs.getString(16)),
        versions(rs.getString(16)),
        traceId(rs.getString(17)));
  }

  /** The trace id of a W3C traceparent ({@code 00-<trace id>-<span id>-<flags>}). */
  private static String traceId(String traceParent) {
    return traceParent == null || traceParent.length() < 35 ? null : traceParent.substring(3, 35);
  }

  private static RunSource source(String json) {
    if (json == null) {
      return null;
    }
    JsonNode n = Json.object(json);
    return new RunSource(
        text(n, "kind"),
        text(n, "repository"),
        text(n, "ref"),
        text(n, "commit"),
        text(n, "configurationVersion"));
  }

  private static List<VariableUse> uses(String json) {
    List<VariableUse> uses = new ArrayList<>();
    if (json != null) {
      Json.object(json)
          .path("variables")
          .forEach(
              v ->
                  uses.add(
                      new VariableUse(
                          text(v, "key"),
                          text(v, "category"),
                          text(v, "source"),
                          v.path("sensitive").asBoolean(false))));
    }
    return uses;
  }

  private static Map<String, Long> versions(String json) {
    Map<String, Long> versions = new LinkedHashMap<>();
    if (json != null) {
      Json.object(json)
          .path("versions")
          .fields()
          .forEachRemaining(f -> versions.put(f.getKey(), f.getValue().asLong()));
    }
    return versions;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.path(field);
    return v.isNull() || v.isMissingNode() ? null : v.asText();
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
