package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fencing invariant lives in one place (ADR 0068): only {@link FencingLedger} holds Java SQL
 * that writes a workspace's fencing row ({@code state.fencing}), or calls {@code
 * state.advance_fencing}; and every repeatable migration whose function writes the row is named in
 * its javadoc. A scan of the service's main sources and migrations, so a new offender fails here.
 */
class FencingLedgerTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");
  private static final Path LEDGER =
      MAIN.resolve("dev/stagecraft/state/adapter/db/FencingLedger.java");

  /** SQL that advances (or writes) the fencing row, case-insensitive. */
  private static final Pattern WRITES_FENCING =
      Pattern.compile(
          "UPDATE\\s+state\\.fencing\\b|INSERT\\s+INTO\\s+state\\.fencing\\b"
              + "|SET\\s+newest_token\\s*=|state\\.advance_fencing\\s*\\(",
          Pattern.CASE_INSENSITIVE);

  /** Adjacent Java string literals joined ({@code "a" + "b"} reads as {@code "ab"}). */
  private static final Pattern CONCATENATION = Pattern.compile("\"\\s*\\+\\s*\"");

  @Test
  void onlyTheLedgerHoldsSqlThatAdvancesAFencingToken() throws IOException {
    TreeSet<String> offenders = new TreeSet<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.equals(LEDGER))
          .forEach(
              p -> {
                if (advancesFencing(read(p))) {
                  offenders.add(MAIN.relativize(p).toString());
                }
              });
    }
    assertThat(offenders).as("main classes writing state.fencing besides FencingLedger").isEmpty();
    assertThat(advancesFencing(read(LEDGER))).isTrue();
  }

  @Test
  void theScanCatchesANewOffender() {
    // what a new writer would look like, on one line or split across literals
    assertThat(
            advancesFencing(
                "Sql.update(c, \"UPDATE state.fencing SET newest_token = ? WHERE tenant = ?\");"))
        .isTrue();
    assertThat(
            advancesFencing(
                "String sql = \"WITH ev AS (...), upd AS (UPDATE state.\"\n"
                    + "    + \"fencing SET newest_token = ? ...)\";"))
        .isTrue();
    assertThat(advancesFencing("\"INSERT INTO state.fencing (tenant, workspace) VALUES (?, ?)\""))
        .isTrue();
    assertThat(advancesFencing("\"SELECT * FROM state.advance_fencing(?, ?, ?, ?, NULL, ?)\""))
        .isTrue();
    assertThat(
            advancesFencing(
                "\"INSERT INTO state.fencing AS f VALUES (?) ON CONFLICT DO UPDATE"
                    + " SET newest_token = excluded.newest_token\""))
        .isTrue();
    // reads are not advances
    assertThat(
            advancesFencing(
                "\"SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?\""))
        .isFalse();
    assertThat(advancesFencing("\"UPDATE lock.fencing_counters SET last_token = ?\"")).isFalse();
  }

  @Test
  void everyRepeatableMigrationThatAdvancesTheTokenIsNamedByTheLedger() throws IOException {
    String ledger = read(LEDGER);
    List<String> writers;
    try (Stream<Path> files = Files.list(MIGRATIONS)) {
      writers =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith("R__") && n.endsWith(".sql"))
              .filter(n -> advancesFencing(read(MIGRATIONS.resolve(n))))
              .sorted()
              .toList();
    }
    assertThat(writers)
        .contains("R__advance_fencing.sql", "R__append_events.sql", "R__push_streamed.sql");
    for (String writer : writers) {
      assertThat(ledger).as("FencingLedger's javadoc names " + writer).contains(writer);
    }
    Matcher named = Pattern.compile("R__\\w+\\.sql").matcher(ledger);
    while (named.find()) {
      assertThat(MIGRATIONS.resolve(named.group())).as("named by FencingLedger").exists();
    }
  }

  private static boolean advancesFencing(String source) {
    return WRITES_FENCING.matcher(CONCATENATION.matcher(source).replaceAll("")).find();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
