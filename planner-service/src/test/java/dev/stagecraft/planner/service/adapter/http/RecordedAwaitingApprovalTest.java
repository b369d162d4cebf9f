package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code awaitingApproval} of a run shown from its records (another instance drives it): false
 * where the records can tell, absent where only the driving instance knows. A client following such
 * a run (`runs logs -follow`) then does not show how to approve an auto-apply run that passes
 * through {@code planned}.
 */
class RecordedAwaitingApprovalTest {
  @Test
  void aRunRequestedWithoutApprovalNeverWaitsWhateverItsStatus() {
    assertThat(RecordedRunViews.awaitingAsRecorded(false, null, Optional.of(false)))
        .contains(false);
  }

  @Test
  void anEndedOrApprovedRunNoLongerWaits() {
    assertThat(RecordedRunViews.awaitingAsRecorded(true, null, Optional.of(true))).contains(false);
    assertThat(RecordedRunViews.awaitingAsRecorded(false, "alice", Optional.of(true)))
        .contains(false);
  }

  @Test
  void aRunRequestedAwaitingApprovalAndNotDecidedIsLeftToTheInstanceThatDrivesIt() {
    assertThat(RecordedRunViews.awaitingAsRecorded(false, null, Optional.of(true))).isEmpty();
    assertThat(RecordedRunViews.awaitingAsRecorded(false, null, Optional.empty()))
        .as("no recorded request (recorded before V1_6)")
        .isEmpty();
  }
}
