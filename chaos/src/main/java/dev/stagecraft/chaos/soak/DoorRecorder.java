package dev.stagecraft.chaos.soak;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The {@code doors} file the checker reads ({@code chaos-check --doors}, {@code DoorLog}): one line
 * for each trigger the broker acknowledged and each backend push the state service stored, written
 * as soon as the answer came.
 */
final class DoorRecorder implements AutoCloseable {
  private final Writer out;

  DoorRecorder(Path file) throws IOException {
    this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
  }

  synchronized void trigger(
      String tenant, String runId, String topic, int partition, long offset, String eventId)
      throws IOException {
    line(
        "trigger "
            + tenant
            + " "
            + runId
            + " "
            + topic
            + " "
            + partition
            + " "
            + offset
            + " "
            + eventId);
  }

  synchronized void push(String tenant, String workspace, long serial, String lockId)
      throws IOException {
    line("push " + tenant + " " + workspace + " " + serial + " " + lockId);
  }

  private void line(String text) throws IOException {
    out.write(Instant.now() + " " + text + "\n");
    out.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
