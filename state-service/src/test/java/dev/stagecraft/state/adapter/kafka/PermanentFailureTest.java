package dev.stagecraft.state.adapter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/**
 * Which recording failures {@link ActionResultListener} dead-letters (permanent) and which it
 * retries (transient); the broker/database behaviour is in {@link ActionResultListenerFailureTest}.
 */
class PermanentFailureTest {
  @Test
  void dataTheDatabaseRefusesIsPermanentAndTheReasonKeepsOnlyTheFirstLine() {
    SQLException refused =
        new SQLException(
            "ERROR: unsupported Unicode escape sequence\n  Detail: Failing row contains (secret)",
            "22P05");
    assertThat(ActionResultListener.permanentFailure(refused))
        .hasValue(
            "the database refuses it (SQLSTATE 22P05): ERROR: unsupported Unicode escape"
                + " sequence");
    assertThat(ActionResultListener.permanentFailure(new SQLException("check", "23514")))
        .isPresent();
    assertThat(ActionResultListener.permanentFailure(new IllegalStateException("unreadable")))
        .hasValueSatisfying(reason -> assertThat(reason).contains("unreadable"));
  }

  @Test
  void connectionsRestartsRacesAndUnknownDatabaseErrorsAreRetried() {
    for (String state :
        new String[] {
          "08006", "08001", "57P01", "57P03", "40001", "40P01", "53300", "23505", "XX000"
        }) {
      assertThat(ActionResultListener.permanentFailure(new SQLException("failed", state)))
          .as(state)
          .isEmpty();
    }
    assertThat(ActionResultListener.permanentFailure(new SQLException("no state"))).isEmpty();
    assertThat(
            ActionResultListener.permanentFailure(
                new SQLTransientConnectionException("Connection is not available")))
        .isEmpty();
    // a database error wrapped by a runtime exception is classified by the database error
    assertThat(
            ActionResultListener.permanentFailure(
                new IllegalStateException("wrapped", new SQLException("gone", "08006"))))
        .isEmpty();
  }
}
