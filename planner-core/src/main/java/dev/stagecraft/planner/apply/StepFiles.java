package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads the files a step names ({@code script}, {@code scripts}, {@code source}, {@code key_file})
 * relative to the configuration directory of {@code ctx} (confined to it on the server); every
 * problem is an error at the argument that named the file, and the read gives null.
 */
final class StepFiles {
  private final EvalContext ctx;
  private final Diagnostics diagnostics;

  StepFiles(EvalContext ctx, Diagnostics diagnostics) {
    this.ctx = ctx;
    this.diagnostics = diagnostics;
  }

  /** {@code path} resolved against the configuration directory; null (with an error) if invalid. */
  Path path(String path, AttributeDecl decl) {
    try {
      return ctx.resolvePath(path);
    } catch (IllegalArgumentException e) {
      diagnostics.error(
          "Invalid path", "\"" + path + "\" is not a valid path: " + e.getMessage(), decl.range());
      return null;
    }
  }

  /**
   * The UTF-8 text of {@code path} (relative to the configuration directory); {@code what} names
   * the file in messages ({@code "script"}, {@code "source file"}, {@code "key file"}).
   */
  String readText(String path, AttributeDecl decl, String what) {
    Path file = path(path, decl);
    if (file == null) {
      return null;
    }
    if (!Files.isRegularFile(file)) {
      diagnostics.error(
          "No such file",
          "The "
              + what
              + " \""
              + path
              + "\" does not exist (relative to "
              + (ctx.fileAccessConfined() ? "the configuration directory" : ctx.baseDirectory())
              + "); check the path.",
          decl.range());
      return null;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
          .toString();
    } catch (CharacterCodingException e) {
      diagnostics.error(
          "Not a text file",
          "The "
              + what
              + " \""
              + path
              + "\" is not UTF-8 text"
              + (what.equals("source file")
                  ? "; to upload binary files, put them in a directory and use it as the source."
                  : "."),
          decl.range());
    } catch (IOException e) {
      diagnostics.error(
          "Cannot read file",
          "The " + what + " \"" + path + "\" cannot be read: " + e.getMessage(),
          decl.range());
    }
    return null;
  }

  /**
   * Every regular file under {@code dir} by relative path ({@code /}-separated) → base64 content.
   * As Terraform's file provisioner: a source ending in {@code /} uploads the directory's contents
   * into the destination, otherwise the directory itself (its name prefixes every path).
   */
  Map<String, String> directory(String source, Path dir, AttributeDecl decl) {
    String prefix = "";
    if (!source.endsWith("/")) {
      Path name = Path.of(source).normalize().getFileName();
      if (name != null && !name.toString().isEmpty() && !name.toString().equals("..")) {
        prefix = name + "/";
      }
    }
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
        StringBuilder relative = new StringBuilder(prefix);
        Path rel = dir.relativize(f);
        for (int i = 0; i < rel.getNameCount(); i++) {
          relative.append(i == 0 ? "" : "/").append(rel.getName(i));
        }
        files.put(relative.toString(), Base64.getEncoder().encodeToString(Files.readAllBytes(f)));
      }
    } catch (IOException | UncheckedIOException e) {
      diagnostics.error(
          "Cannot read directory",
          "The source directory \"" + source + "\" cannot be read: " + e.getMessage(),
          decl.range());
      return null;
    }
    if (files.isEmpty()) {
      diagnostics.error(
          "Empty source directory",
          "The source directory \"" + source + "\" holds no files, so there is nothing to upload.",
          decl.range());
    }
    return files;
  }
}
