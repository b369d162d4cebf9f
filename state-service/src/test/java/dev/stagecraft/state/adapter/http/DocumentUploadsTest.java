package dev.stagecraft.state.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streamed pushes hold a pooled database connection for their whole upload (ADR 0031), so only a
 * bounded number stream at once; the others are spooled to a file.
 */
class DocumentUploadsTest {
  @TempDir Path dir;

  @Test
  void onlyTheConfiguredNumberOfPushesStreamAtOnceAndAPlaceGivenBackIsTakenAgain() {
    DocumentUploads uploads = new DocumentUploads(1 << 20, dir.toString(), 2);
    assertThat(uploads.tryStartStreaming()).isTrue();
    assertThat(uploads.tryStartStreaming()).isTrue();
    assertThat(uploads.tryStartStreaming()).as("a third push is spooled").isFalse();
    uploads.endStreaming();
    assertThat(uploads.tryStartStreaming()).isTrue();
    assertThat(uploads.tryStartStreaming()).isFalse();
  }

  @Test
  void zeroSpoolsEveryPushAndANegativeNumberIsRefusedNamingTheSetting() {
    assertThat(new DocumentUploads(1 << 20, dir.toString(), 0).tryStartStreaming()).isFalse();
    assertThatThrownBy(() -> new DocumentUploads(1 << 20, dir.toString(), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_STATE_STREAMED_PUSHES");
  }
}
