package dev.stagecraft.chaos;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.invariant.ChaosChecker;
import dev.stagecraft.chaos.invariant.Violation;
import dev.stagecraft.chaos.report.ChaosReport;
import dev.stagecraft.chaos.source.ActionKey;
import dev.stagecraft.chaos.source.DoorLog;
import dev.stagecraft.chaos.source.FaultLog;
import dev.stagecraft.chaos.source.JournalFile;
import dev.stagecraft.chaos.source.LockAuditTrail;
import dev.stagecraft.chaos.source.ReadLog;
import dev.stagecraft.chaos.source.RunAssembly;
import dev.stagecraft.chaos.source.RunRow;
import dev.stagecraft.chaos.source.StateHistoryAssembly;
import dev.stagecraft.chaos.source.StepReportAssembly;
import dev.stagecraft.chaos.source.TokenManifest;
import dev.stagecraft.chaos.source.db.SoakDatabase;
import dev.stagecraft.chaos.source.kafka.TopicReader;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Gathers a soak's history from its sources, checks it and writes the report: {@code chaos-check
 * [--jdbc-url URL --db-user USER] [--kafka BOOTSTRAP [--kafka-config CLIENT.properties]] [--journal
 * HOST=FILE ... --manifest FILE] [--faults FILE] [--reads FILE] [--doors FILE] [--bound SECONDS]
 * [--title TEXT] --out REPORT.md}. The database password is read from {@code
 * STAGECRAFT_CHAOS_DB_PASSWORD} (never an argument: arguments show in process lists). Exit status:
 * 0 no violation, 1 violations (the report says which), 2 the command or a source could not be used
 * (the message says what to fix; no report is written).
 */
public final class ChaosCheckMain {
  private ChaosCheckMain() {}

  public static final String PASSWORD_ENV = "STAGECRAFT_CHAOS_DB_PASSWORD";

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err, System.getenv(), Clock.systemUTC()));
  }

  public static int run(
      String[] args, PrintStream out, PrintStream err, Map<String, String> env, Clock clock) {
    ChaosCheckOptions options;
    try {
      options = ChaosCheckOptions.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("chaos-check: " + e.getMessage());
      err.println(ChaosCheckOptions.USAGE);
      return 2;
    }
    try {
      List<String> problems = new ArrayList<>();
      History history = gather(options, env, clock, problems);
      List<Violation> violations = ChaosChecker.all(options.bound()).check(history);
      String report = ChaosReport.markdown(options.title(), history, violations, problems);
      Files.writeString(options.out(), report, StandardCharsets.UTF_8);
      out.println(
          "chaos-check: "
              + history.runs().size()
              + " runs, "
              + history.faults().size()
              + " faults, "
              + violations.size()
              + " violations, "
              + problems.size()
              + " source problems; report in "
              + options.out());
      return violations.isEmpty() ? 0 : 1;
    } catch (IllegalArgumentException | IllegalStateException | IOException | SQLException e) {
      err.println("chaos-check: " + e.getMessage());
      return 2;
    }
  }

  private static History gather(
      ChaosCheckOptions o, Map<String, String> env, Clock clock, List<String> problems)
      throws IOException, SQLException {
    History.Builder history = History.builder(clock.instant());
    List<StepExecution> executions = new ArrayList<>();
    if (!o.journals().isEmpty()) {
      TokenManifest manifest = TokenManifest.read(o.manifest());
      for (Map.Entry<String, Path> journal : o.journals().entrySet()) {
        JournalFile.Reading reading =
            JournalFile.read(journal.getValue(), journal.getKey(), manifest);
        executions.addAll(reading.executions());
        problems.addAll(reading.problems());
      }
      history.executions(executions);
    }
    if (o.faults() != null) {
      FaultLog.Reading faults = FaultLog.read(o.faults());
      history.faults(faults.faults());
      problems.addAll(faults.problems());
    }
    if (o.reads() != null) {
      ReadLog.Reading reads = ReadLog.read(o.reads());
      history.accesses(reads.accesses());
      problems.addAll(reads.problems());
    }
    Set<ActionKey> tainted = Set.of();
    if (o.jdbcUrl() != null) {
      String password = env.get(PASSWORD_ENV);
      if (password == null) {
        throw new IllegalArgumentException(
            "--jdbc-url needs the database password in " + PASSWORD_ENV);
      }
      try (Connection c = DriverManager.getConnection(o.jdbcUrl(), o.dbUser(), password)) {
        LockAuditTrail locks = LockAuditTrail.of(SoakDatabase.lockAudit(c));
        problems.addAll(locks.problems());
        List<RunRow> runRows = SoakDatabase.runs(c);
        history
            .runs(RunAssembly.runs(runRows, locks))
            .transitions(RunAssembly.transitions(runRows))
            .locks(locks.tenures())
            .states(StateHistoryAssembly.entries(SoakDatabase.stateEvents(c)))
            .events(SoakDatabase.lockOutboxCommitted(c));
        tainted = SoakDatabase.taintedActions(c);
      }
    }
    if (o.doors() != null) {
      // the chat-ops triggers and backend pushes the workload had committed, and what each led to
      DoorLog.Reading doors = DoorLog.read(o.doors());
      problems.addAll(doors.problems());
      History partial = history.build();
      history
          .events(doors.committed())
          .events(DoorLog.downstream(doors.committed(), partial.runs(), partial.stateEntries()));
    }
    if (o.kafka() != null) {
      Map<String, Object> client = new HashMap<>();
      if (o.kafkaConfig() != null) {
        // e.g. security.protocol, sasl.mechanism and sasl.jaas.config of a principal that may read
        // the topics: a file, so no secret is on the command line
        Properties p = new Properties();
        try (var in = Files.newInputStream(o.kafkaConfig())) {
          p.load(in);
        }
        p.forEach((k, v) -> client.put(String.valueOf(k), v));
      }
      client.put("bootstrap.servers", o.kafka());
      TopicReader.Reading lockEvents =
          TopicReader.read(client, SoakDatabase.LOCK_EVENTS_TOPIC, Duration.ofMinutes(2));
      TopicReader.Reading actionEvents =
          TopicReader.read(client, "stagecraft.action-events", Duration.ofMinutes(2));
      problems.addAll(lockEvents.problems());
      problems.addAll(actionEvents.problems());
      history.events(lockEvents.downstream());
      List<EventEnvelope> actions = actionEvents.envelopes();
      history.reports(
          StepReportAssembly.reports(
              actions, tainted, executions.stream().map(StepExecution::step).toList()));
    }
    return history.build();
  }
}
