package dev.stagecraft.cli.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The configuration of a directory: its {@code *.tf} and {@code *.tf.json} files, by name, and the
 * supporting files sent with them (what {@code file()} and provisioners read on the server).
 */
public final class ConfigDirectory {
  /** The most a single supporting file may hold. */
  static final long MAX_FILE_BYTES = 1L << 20;

  /** The most all supporting files may hold together. */
  static final long MAX_TOTAL_BYTES = 10L << 20;

  private ConfigDirectory() {}

  public static Map<String, String> read(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> entries = Files.list(dir)) {
      for (Path p : entries.sorted().toList()) {
        String name = p.getFileName().toString();
        if (Files.isRegularFile(p) && isConfigFile(name)) {
          files.put(name, Files.readString(p, StandardCharsets.UTF_8));
        }
      }
    }
    return files;
  }

  private static boolean isConfigFile(String name) {
    return name.endsWith(".tf") || name.endsWith(".tf.json");
  }

  /** A supporting file, or all of them together, over the limit. */
  static final class TooLargeException extends IOException {
    TooLargeException(String message) {
      super(message);
    }
  }

  /**
   * Every other regular file under {@code dir}, recursively, by {@code /}-separated relative path →
   * base64 content. Skipped: hidden files and directories (names starting with {@code .}, so also
   * {@code .stagecraft/}), saved plans ({@code *.plan}, or any file that starts as one), {@code
   * terraform.tfstate*}, variable files ({@code *.tfvars}, {@code *.tfvars.json}: they may hold
   * secrets, and their values are sent as variables) and the configuration files themselves.
   * Symbolic links to files are read; linked directories are not entered.
   *
   * @throws TooLargeException when a file is over 1 MiB or all of them over 10 MiB
   */
  public static Map<String, String> readSupportFiles(Path dir) throws IOException {
    return readSupportFiles(dir, List.of());
  }

  /**
   * The supporting files, with those of the git module checkouts {@code moduleDirs} (relative to
   * {@code dir}, under {@code .stagecraft/modules/}: hidden, so sent only when named here), which
   * count against the same limits.
   */
  public static Map<String, String> readSupportFiles(Path dir, List<String> moduleDirs)
      throws IOException {
    Path base = dir.toAbsolutePath().normalize();
    List<Path> found = new ArrayList<>();
    walk(base, found);
    for (String module : moduleDirs) {
      walk(base.resolve(module), found);
    }
    Map<String, String> out = new TreeMap<>();
    long total = 0;
    for (Path f : found.stream().sorted().toList()) {
      String relative = base.relativize(f).toString().replace('\\', '/');
      boolean inModule = moduleDirs.stream().anyMatch(m -> relative.startsWith(m + "/"));
      String name = relative.substring(relative.lastIndexOf('/') + 1);
      if ((inModule ? name.startsWith(".") : skipped(relative))
          || !Files.isRegularFile(f)
          || isSavedPlan(f)) {
        continue;
      }
      long size = Files.size(f);
      if (size > MAX_FILE_BYTES) {
        throw new TooLargeException(
            "the file \""
                + relative
                + "\" in the configuration directory is "
                + mib(size)
                + "; files sent with the configuration may be at most 1 MiB each. Move it out of"
                + " the directory (or rename it to start with \".\" to leave it out).");
      }
      total += size;
      if (total > MAX_TOTAL_BYTES) {
        throw new TooLargeException(
            "the files in the configuration directory add up to more than 10 MiB (the limit of"
                + " files sent with the configuration), reached at \""
                + relative
                + "\". Move large files out of the directory (or rename them to start with \".\""
                + " to leave them out).");
      }
      out.put(relative, Base64.getEncoder().encodeToString(Files.readAllBytes(f)));
    }
    return out;
  }

  private static void walk(Path base, List<Path> found) throws IOException {
    if (!Files.isDirectory(base)) {
      return;
    }
    Files.walkFileTree(
        base,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
            if (!d.equals(base) && d.getFileName().toString().startsWith(".")) {
              return FileVisitResult.SKIP_SUBTREE;
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
            found.add(f);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static boolean skipped(String relative) {
    String name = relative.substring(relative.lastIndexOf('/') + 1);
    return name.startsWith(".")
        || name.endsWith(".plan")
        || name.startsWith("terraform.tfstate")
        // variable files may hold secret values: they are sent as variables, never as files
        || name.endsWith(".tfvars")
        || name.endsWith(".tfvars.json")
        || (!relative.contains("/") && isConfigFile(name));
  }

  /** A saved plan under another name than {@code *.plan} (it holds the files of its own). */
  private static boolean isSavedPlan(Path f) throws IOException {
    byte[] head = new byte[128];
    int n;
    try (var in = Files.newInputStream(f)) {
      n = in.readNBytes(head, 0, head.length);
    }
    return new String(head, 0, n, StandardCharsets.ISO_8859_1).contains(SavedPlan.FORMAT);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
  }
}
