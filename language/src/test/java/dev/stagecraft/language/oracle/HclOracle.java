package dev.stagecraft.language.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HashiCorp's own HCL parser ({@code hclsyntax} compiled to WebAssembly, npm {@code
 * @cdktf/hcl2json} 0.21.0) driven through {@code dev/oracle/hcl2json.js}: one node process parses a
 * whole batch of files.
 *
 * <p>Fails (never skips) when node or the npm package is missing: {@code dev/test} installs both.
 */
final class HclOracle {
  /** What the oracle said about one file. */
  record Verdict(boolean ok, JsonNode json, String error) {
    /** HCL rejected the syntax (as opposed to hcl2json failing to convert a valid file). */
    boolean syntaxError() {
      return !ok && error.startsWith("parse config:");
    }
  }

  private static final String HOW_TO_INSTALL =
      "run dev/test, which installs it (apt-get install nodejs npm; cd dev/oracle && npm ci)";

  private final Path repoRoot;
  private final Path script;

  private HclOracle(Path repoRoot) {
    this.repoRoot = repoRoot;
    this.script = repoRoot.resolve("dev/oracle/hcl2json.js");
  }

  /** The repository root: the parent of the module directory the tests run in. */
  static Path repoRoot() {
    String basedir = System.getProperty("basedir");
    Path module =
        Path.of(basedir != null ? basedir : System.getProperty("user.dir")).toAbsolutePath();
    Path root = module.getParent();
    if (root == null || !Files.isDirectory(root.resolve("dev"))) {
      throw new IllegalStateException(
          "Cannot find the repository root (the parent of " + module + " should hold dev/)");
    }
    return root;
  }

  /** Finds node and the oracle package, or throws {@link AssertionError} saying how to get them. */
  static HclOracle locate() {
    Path root = repoRoot();
    HclOracle o = new HclOracle(root);
    if (!Files.isRegularFile(o.script)) {
      throw new AssertionError("The HCL oracle script " + o.script + " is missing.");
    }
    Path pkg = root.resolve("dev/oracle/node_modules/@cdktf/hcl2json/package.json");
    if (!Files.isRegularFile(pkg)) {
      throw new AssertionError(
          "The HCL oracle (npm @cdktf/hcl2json) is not installed under dev/oracle/node_modules: "
              + HOW_TO_INSTALL
              + ".");
    }
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError("node --version failed: " + HOW_TO_INSTALL + ".");
      }
    } catch (IOException e) {
      throw new AssertionError("node is not installed (" + e.getMessage() + "): " + HOW_TO_INSTALL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    return o;
  }

  /** Parses every file with HashiCorp's parser, in one node process. Keys are the given paths. */
  Map<Path, Verdict> parseAll(List<Path> files) throws IOException, InterruptedException {
    ObjectMapper json = new ObjectMapper();
    List<String> command = new ArrayList<>(List.of("node", script.toString()));
    for (Path f : files) {
      command.add(f.toAbsolutePath().toString());
    }
    Path tmp = Files.createTempDirectory("hcl-oracle");
    Path stdoutFile = tmp.resolve("stdout.jsonl");
    Path stderrFile = tmp.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(command)
            .directory(repoRoot.resolve("dev/oracle").toFile())
            .redirectOutput(stdoutFile.toFile())
            .redirectError(stderrFile.toFile())
            .start();
    p.getOutputStream().close();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("The HCL oracle did not finish within 120 s");
    }
    String out = Files.readString(stdoutFile, StandardCharsets.UTF_8);
    String stderr = Files.readString(stderrFile, StandardCharsets.UTF_8);
    Files.delete(stdoutFile);
    Files.delete(stderrFile);
    Files.delete(tmp);
    if (p.exitValue() != 0) {
      throw new AssertionError(
          "The HCL oracle failed (exit " + p.exitValue() + "): " + stderr + "\n" + HOW_TO_INSTALL);
    }
    Map<Path, Verdict> result = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = json.readTree(line);
      Path file = Path.of(n.get("file").asText());
      boolean ok = n.get("ok").asBoolean();
      result.put(
          file, new Verdict(ok, ok ? n.get("json") : null, ok ? null : n.get("error").asText()));
    }
    Map<Path, Verdict> byGivenPath = new LinkedHashMap<>();
    for (Path f : files) {
      Verdict v = result.get(f.toAbsolutePath());
      if (v == null) {
        throw new AssertionError("The HCL oracle gave no answer for " + f + "; stderr: " + stderr);
      }
      byGivenPath.put(f, v);
    }
    return byGivenPath;
  }
}
