package dev.stagecraft.devstack;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Reads and writes the dev stack's small JSON files. Writes are atomic (temp file + rename) because
 * the CLI polls for them; secrets are created with mode 0600 from the start.
 */
public final class StackFiles {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private StackFiles() {}

  public static <T> Optional<T> read(Path file, Class<T> type) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    return Optional.of(JSON.readValue(file.toFile(), type));
  }

  /** Like {@link #read} but treats an unreadable or half-written file as absent. */
  public static <T> Optional<T> readQuietly(Path file, Class<T> type) {
    try {
      return read(file, type);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  public static void writeJson(Path file, Object value, boolean secret) throws IOException {
    writeString(file, JSON.writeValueAsString(value) + "\n", secret);
  }

  /**
   * The secret kept in {@code file}, or, when the file is missing or empty, a new random one (32
   * bytes as hex) written there with mode 0600: generated at the first start, reused after.
   */
  public static String secret(Path file) throws IOException {
    if (Files.isRegularFile(file)) {
      String kept = Files.readString(file).strip();
      if (!kept.isEmpty()) {
        return kept;
      }
    }
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String secret = HexFormat.of().formatHex(bytes);
    writeString(file, secret + "\n", true);
    return secret;
  }

  /** Writes atomically; {@code secret} files get mode 0600 before any byte is written. */
  public static void writeString(Path file, String content, boolean secret) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp =
        secret
            ? Files.createTempFile(
                dir,
                "." + file.getFileName(),
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(
                dir,
                "." + file.getFileName(),
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    try {
      Files.writeString(tmp, content);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
