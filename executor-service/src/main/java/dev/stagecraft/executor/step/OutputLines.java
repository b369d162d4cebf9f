package dev.stagecraft.executor.step;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits a command's output stream into lines, as {@code BufferedReader.readLine} does ({@code \n},
 * {@code \r} or {@code \r\n} end a line; UTF-8), but never holds more than {@link #MAX_LINE_BYTES}
 * of one line: a longer line is handed over in pieces of that size. A command (or a remote host)
 * that prints gigabytes without a line break cannot make the executor run out of memory.
 *
 * <p>Not thread-safe: one instance per stream, used by the thread that reads it.
 */
public final class OutputLines {
  public static final int MAX_LINE_BYTES = 64 * 1024;

  /** Takes one line; returns false when it wants no more (the rest is read and dropped). */
  @FunctionalInterface
  public interface LineHandler {
    boolean line(String line);
  }

  private OutputLines() {}

  /**
   * Reads {@code in} to its end, handing each line to {@code handler}. After the handler returned
   * false the rest of the stream is still read (so that the writer never blocks on a full pipe) but
   * dropped.
   *
   * @throws IOException when reading fails (the stream was closed because the command was killed)
   */
  public static void pump(InputStream in, LineHandler handler) throws IOException {
    byte[] chunk = new byte[8192];
    byte[] line = new byte[256];
    int length = 0;
    boolean wanted = true;
    boolean afterCarriageReturn = false;
    int n;
    while ((n = in.read(chunk)) >= 0) {
      if (!wanted) {
        continue;
      }
      for (int i = 0; i < n && wanted; i++) {
        byte b = chunk[i];
        if (b == '\n' && afterCarriageReturn) {
          afterCarriageReturn = false; // the \n of \r\n: the line was handed over at the \r
          continue;
        }
        afterCarriageReturn = b == '\r';
        if (b == '\n' || b == '\r') {
          wanted = handler.line(new String(line, 0, length, StandardCharsets.UTF_8));
          length = 0;
          continue;
        }
        if (length == line.length) {
          if (length == MAX_LINE_BYTES) {
            wanted = handler.line(new String(line, 0, length, StandardCharsets.UTF_8));
            length = 0;
          } else {
            line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, line.length * 2));
          }
        }
        line[length++] = b;
      }
    }
    if (wanted && length > 0) {
      handler.line(new String(line, 0, length, StandardCharsets.UTF_8));
    }
  }
}
