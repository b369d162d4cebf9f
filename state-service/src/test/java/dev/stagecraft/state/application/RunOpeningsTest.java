package dev.stagecraft.state.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.stagecraft.state.history.WorkspaceState;
import dev.stagecraft.state.hostkey.HostKey;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Opening a run against a scripted {@link OpeningLog}: what the use case does with each typed
 * answer of the advance, without a database (the store's side: StateAppendTest).
 */
class RunOpeningsTest {
  private static final WorkspaceState STATE = new WorkspaceState(4, "lineage-1", Map.of());

  @Test
  void anAdvancedTokenWithItsCredentialReadsTheKeysAndTheStateAtItsHead() throws Exception {
    ScriptedLog log = new ScriptedLog(new OpeningLog.Advance.Advanced(7, true, true));

    RunOpening opening = new RunOpenings(log).open("t", "w", 3, "run-3", "hash");

    assertThat(opening.newerToken()).isEmpty();
    assertThat(opening.credentialIssued()).isTrue();
    assertThat(opening.state()).isSameAs(STATE);
    assertThat(opening.hostKeys()).isEqualTo(ScriptedLog.KEYS);
    assertThat(log.read).containsExactly("keys", "state at 7 knowing 3");
    assertThat(log.closed).isTrue();
  }

  @Test
  void aNewerTokenIsRefusedWithNothingRead() throws Exception {
    ScriptedLog log = new ScriptedLog(new OpeningLog.Advance.Newer(9));

    RunOpening opening = new RunOpenings(log).open("t", "w", 3, "run-3", "hash");

    assertThat(opening.newerToken()).contains(9L);
    assertThat(opening.credentialIssued()).isFalse();
    assertThat(opening.state()).isNull();
    assertThat(log.read).isEmpty();
  }

  @Test
  void anEndedRunGetsNoCredentialAndNothingIsRead() throws Exception {
    ScriptedLog log = new ScriptedLog(new OpeningLog.Advance.Advanced(7, true, false));

    RunOpening opening = new RunOpenings(log).open("t", "w", 3, "run-3", "hash");

    assertThat(opening.newerToken()).isEmpty();
    assertThat(opening.credentialIssued()).isFalse();
    assertThat(opening.hostKeys()).isEmpty();
    assertThat(log.read).isEmpty();
  }

  @Test
  void theFirstOpeningCreatesTheRowAndAMovedHeadAdvancesAgain() throws Exception {
    ScriptedLog log =
        new ScriptedLog(
            new OpeningLog.Advance.NoRow(),
            new OpeningLog.Advance.Moved(),
            new OpeningLog.Advance.Advanced(1, true, true));

    RunOpening opening = new RunOpenings(log).open("t", "w", 1, "run-1", "hash");

    assertThat(opening.credentialIssued()).isTrue();
    assertThat(log.advances).isEqualTo(3);
    assertThat(log.rowsCreated).isEqualTo(1);
  }

  @Test
  void aHeadMovedEveryTimeGivesUpAsTransient() {
    ScriptedLog log = new ScriptedLog(new OpeningLog.Advance.Moved());

    SQLException e =
        catchThrowableOfType(
            SQLException.class, () -> new RunOpenings(log).open("t", "w", 1, "run-1", "hash"));

    assertThat(e.getSQLState()).isEqualTo("40001");
    assertThat(log.advances).isEqualTo(RunOpenings.MAX_ADVANCE_ATTEMPTS);
  }

  /** Advance answers in order (the last one again), and what was read. */
  private static final class ScriptedLog implements OpeningLog, OpeningLog.Opening {
    static final List<HostKey> KEYS = List.of();
    final Deque<Advance> answers;
    final List<String> read = new ArrayList<>();
    int advances;
    int rowsCreated;
    boolean closed;

    ScriptedLog(Advance... answers) {
      this.answers = new ArrayDeque<>(List.of(answers));
    }

    @Override
    public Opening open(String tenant, String workspace) {
      return this;
    }

    @Override
    public Advance advance(long token, String runId, String credentialHash) {
      advances++;
      return answers.size() > 1 ? answers.removeFirst() : answers.getFirst();
    }

    @Override
    public void createRow() {
      rowsCreated++;
    }

    @Override
    public List<HostKey> hostKeys() {
      read.add("keys");
      return KEYS;
    }

    @Override
    public WorkspaceState state(Advance.Advanced advanced, long token) {
      read.add("state at " + advanced.head() + " knowing " + token);
      return STATE;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
