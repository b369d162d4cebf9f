package dev.stagecraft.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** The command line of {@link ChaosCheckMain}; every mistake is an exception saying what to fix. */
record ChaosCheckOptions(
    String jdbcUrl,
    String dbUser,
    String kafka,
    Path kafkaConfig,
    Map<String, Path> journals,
    Path manifest,
    Path faults,
    Path reads,
    Path doors,
    Duration bound,
    String title,
    Path out) {

  static final String USAGE =
      "usage: chaos-check [--jdbc-url URL --db-user USER]"
          + " [--kafka BOOTSTRAP [--kafka-config CLIENT.properties]]"
          + " [--journal HOST=FILE ... --manifest FILE] [--faults FILE] [--reads FILE] [--doors FILE]"
          + " [--bound SECONDS]"
          + " [--title TEXT] --out REPORT.md  (database password in STAGECRAFT_CHAOS_DB_PASSWORD)";

  static ChaosCheckOptions parse(String[] args) {
    String jdbcUrl = null;
    String dbUser = null;
    String kafka = null;
    Path kafkaConfig = null;
    Map<String, Path> journals = new LinkedHashMap<>();
    Path manifest = null;
    Path faults = null;
    Path reads = null;
    Path doors = null;
    Duration bound = Duration.ofSeconds(60);
    String title = "Chaos check";
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--jdbc-url" -> jdbcUrl = value;
        case "--db-user" -> dbUser = value;
        case "--kafka" -> kafka = value;
        case "--kafka-config" -> kafkaConfig = Path.of(value);
        case "--journal" -> {
          int eq = value.indexOf('=');
          if (eq <= 0 || eq == value.length() - 1) {
            throw new IllegalArgumentException(
                "--journal takes HOST=FILE (e.g. executor-1=/tmp/soak/executor-1.journal), not "
                    + value);
          }
          journals.put(value.substring(0, eq), Path.of(value.substring(eq + 1)));
        }
        case "--manifest" -> manifest = Path.of(value);
        case "--faults" -> faults = Path.of(value);
        case "--reads" -> reads = Path.of(value);
        case "--doors" -> doors = Path.of(value);
        case "--bound" -> {
          try {
            bound = Duration.ofSeconds(Long.parseLong(value));
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                "--bound takes whole seconds (e.g. 60), not " + value);
          }
        }
        case "--title" -> title = value;
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    if (out == null) {
      throw new IllegalArgumentException("--out REPORT.md is required");
    }
    if (!journals.isEmpty() && manifest == null) {
      throw new IllegalArgumentException(
          "--journal needs --manifest FILE: the tokens' steps (\"<token> <runId> <actionId>"
              + " <stepId> <retryable|once>\" a line)");
    }
    if (kafkaConfig != null && kafka == null) {
      throw new IllegalArgumentException("--kafka-config needs --kafka BOOTSTRAP");
    }
    if (jdbcUrl != null && dbUser == null) {
      throw new IllegalArgumentException("--jdbc-url needs --db-user USER");
    }
    return new ChaosCheckOptions(
        jdbcUrl,
        dbUser,
        kafka,
        kafkaConfig,
        Collections.unmodifiableMap(new TreeMap<>(journals)),
        manifest,
        faults,
        reads,
        doors,
        bound,
        title,
        out);
  }
}
