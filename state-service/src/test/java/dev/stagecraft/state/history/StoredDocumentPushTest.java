package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.state.history.DocumentDecider.Outcome;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link DocumentDecider#pushStored}: the push rules on a document stored apart, decided from its
 * reference (serial, lineage, digest) without loading it.
 */
class StoredDocumentPushTest {
  private static final StoredDocument CURRENT = new StoredDocument("d1", "m1", 10, 5, "lin");
  private static final WorkspaceState STATE = new WorkspaceState(5, "lin", Map.of());

  private static StoredDocument upload(String digest, long serial, String lineage) {
    return new StoredDocument(digest, "m", 10, serial, lineage);
  }

  private static Outcome push(
      StoredDocument upload, boolean force, boolean sameContent, AtomicInteger comparisons) {
    return DocumentDecider.pushStored(
        upload,
        List.of(),
        STATE,
        CURRENT,
        force,
        0,
        0,
        () -> {
          comparisons.incrementAndGet();
          return sameContent;
        },
        serial -> upload("rewritten", serial, upload.lineage()));
  }

  @Test
  void aHigherSerialIsStoredAsItIsBehindAReferenceEvent() {
    Outcome outcome = push(upload("d2", 6, "lin"), false, false, new AtomicInteger());

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.serial()).isEqualTo(6);
    assertThat(outcome.events())
        .singleElement()
        .isInstanceOfSatisfying(
            StateEvent.StateReplaced.class,
            e -> {
              assertThat(e.document()).isNull();
              assertThat(e.stored().digest()).isEqualTo("d2");
              assertThat(e.typeName()).isEqualTo("state_pushed");
            });
  }

  @Test
  void theSameBytesAgainWriteNothingWithoutComparingContent() {
    AtomicInteger comparisons = new AtomicInteger();
    Outcome outcome = push(upload("d1", 5, "lin"), false, false, comparisons);

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.events()).isEmpty();
    assertThat(comparisons).hasValue(0);
  }

  @Test
  void theSameSerialWithOtherBytesIsComparedAsJsonAndRefusedWhenItDiffers() {
    AtomicInteger comparisons = new AtomicInteger();
    assertThat(push(upload("d3", 5, "lin"), false, true, comparisons).events()).isEmpty();
    assertThat(push(upload("d3", 5, "lin"), false, false, comparisons).rejection())
        .isEqualTo(Rejection.SERIAL_UNCHANGED);
    assertThat(comparisons).hasValue(2);
  }

  @Test
  void anotherLineageOrALowerSerialIsRefusedUnlessForcedWhichRewritesTheSerial() {
    assertThat(push(upload("d4", 9, "other"), false, false, new AtomicInteger()).rejection())
        .isEqualTo(Rejection.LINEAGE_MISMATCH);
    assertThat(push(upload("d4", 4, "lin"), false, false, new AtomicInteger()).rejection())
        .isEqualTo(Rejection.SERIAL_BACKWARDS);

    Outcome forced = push(upload("d4", 4, "other"), true, false, new AtomicInteger());
    assertThat(forced.serial()).isEqualTo(6);
    assertThat(((StateEvent.StateReplaced) forced.events().get(0)).stored().digest())
        .isEqualTo("rewritten");
  }

  @Test
  void problemsAndAStaleTokenRefuseBeforeAnythingElse() {
    Outcome invalid =
        DocumentDecider.pushStored(
            upload("d5", 6, "lin"),
            List.of("$.version: must be 4"),
            STATE,
            CURRENT,
            false,
            0,
            0,
            () -> true,
            s -> null);
    assertThat(invalid.rejection()).isEqualTo(Rejection.INVALID);
    assertThat(invalid.problems()).containsExactly("$.version: must be 4");

    Outcome stale =
        DocumentDecider.pushStored(
            upload("d5", 6, "lin"), List.of(), STATE, CURRENT, false, 1, 2, () -> true, s -> null);
    assertThat(stale.rejection()).isEqualTo(Rejection.STALE_FENCING_TOKEN);
  }

  @Test
  void anEmptyWorkspaceTakesAnyValidDocument() {
    Outcome outcome =
        DocumentDecider.pushStored(
            upload("d6", 0, "new"),
            List.of(),
            WorkspaceState.EMPTY,
            null,
            false,
            0,
            0,
            () -> false,
            s -> null);
    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.events()).hasSize(1);
  }
}
