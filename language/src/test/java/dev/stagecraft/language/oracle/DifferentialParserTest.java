package dev.stagecraft.language.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Differential test of our parser against HashiCorp's own ({@code hclsyntax}, via npm {@code
 * @cdktf/hcl2json}, installed by {@code dev/test} into {@code dev/oracle}): for every file of the
 * corpus both accept with the same structure, or both reject.
 *
 * <p>The corpus: {@code src/test/resources/corpus/} (the seed examples, every configuration used in
 * the repository's tests, realistic hand-written configurations and edge cases) plus {@link
 * CorpusGenerator}'s seeded configurations and mutated variants, written to {@code
 * target/oracle-corpus/generated-PID/}.
 *
 * <p>"Same structure" means our parse tree rendered by {@link HclJson} equals hcl2json's output:
 * block types, labels, nesting, order of repeated blocks, attribute names, literal values, and the
 * exact source text of every non-literal expression (taken from our source ranges).
 *
 * <p>Known parser bugs are listed in {@link #KNOWN_DIFFERENCES}; the test asserts they still differ,
 * so fixing the parser forces removing the entry. Every other file must agree. The test fails (it
 * does not skip) when node or the oracle package is missing.
 */
class DifferentialParserTest {
  private static final long SEED = 0x5EED_0AC1EL;
  private static final int GENERATED_VALID = 170;
  private static final int GENERATED_MUTATED = 72;

  /** Corpus id → why our parser still differs from HCL there. Keep each reason to one line. */
  static final Map<String, String> KNOWN_DIFFERENCES = Map.ofEntries();

  private static Map.Entry<String, String> known(String id, String reason) {
    return Map.entry(id, reason);
  }

  /** One file's outcome: null difference means agreement. */
  record Outcome(String id, boolean hclAccepts, boolean oursAccepts, String difference) {}

  @Test
  void ourParserAgreesWithHashiCorpsParserOnTheWholeCorpus() throws Exception {
    long started = System.nanoTime();
    HclOracle oracle = HclOracle.locate();
    Map<String, Path> corpus = corpus();
    assertThat(corpus).as("corpus size").hasSizeGreaterThanOrEqualTo(200);

    Map<Path, HclOracle.Verdict> verdicts = oracle.parseAll(new ArrayList<>(corpus.values()));
    List<Outcome> outcomes = new ArrayList<>();
    for (Map.Entry<String, Path> e : corpus.entrySet()) {
      outcomes.add(compare(e.getKey(), e.getValue(), verdicts.get(e.getValue())));
    }

    List<String> unexpected = new ArrayList<>();
    List<String> fixed = new ArrayList<>();
    for (Outcome o : outcomes) {
      boolean known = KNOWN_DIFFERENCES.containsKey(o.id());
      if (o.difference() != null && !known) {
        unexpected.add(o.id() + ": " + o.difference());
      } else if (o.difference() == null && known) {
        fixed.add(o.id() + " (" + KNOWN_DIFFERENCES.get(o.id()) + ")");
      }
    }
    TreeSet<String> missing = new TreeSet<>(KNOWN_DIFFERENCES.keySet());
    missing.removeAll(corpus.keySet());

    long hclRejects = outcomes.stream().filter(o -> !o.hclAccepts()).count();
    System.out.printf(
        "DifferentialParserTest: %d files (%d accepted and %d rejected by HCL), %d agree, %d known"
            + " differences, %d unexpected differences, %.1f s%n",
        outcomes.size(),
        outcomes.size() - hclRejects,
        hclRejects,
        outcomes.stream().filter(o -> o.difference() == null).count(),
        KNOWN_DIFFERENCES.size(),
        unexpected.size(),
        (System.nanoTime() - started) / 1e9);

    for (Outcome o : outcomes) {
      if (o.difference() != null && KNOWN_DIFFERENCES.containsKey(o.id())) {
        System.out.println("  known difference " + o.id() + ": " + o.difference());
      }
    }
    assertThat(missing).as("KNOWN_DIFFERENCES entries that are not in the corpus").isEmpty();
    assertThat(fixed)
        .as(
            "known differences that now AGREE with HashiCorp's parser: remove them from"
                + " KNOWN_DIFFERENCES")
        .isEmpty();
    assertThat(unexpected)
        .as("files where our parser disagrees with HashiCorp's (ours vs HCL)")
        .isEmpty();
    // the corpus must keep both sides of the question meaningful
    assertThat(hclRejects).as("invalid files in the corpus").isGreaterThanOrEqualTo(30);
    assertThat(outcomes.size() - hclRejects).as("valid files").isGreaterThanOrEqualTo(150);
  }

  /** Corpus id → file: the checked-in files, then the generated ones. */
  static Map<String, Path> corpus() throws IOException {
    Path module = HclOracle.repoRoot().resolve("language");
    Path checkedIn = module.resolve("src/test/resources/corpus");
    Map<String, Path> out = new LinkedHashMap<>();
    try (Stream<Path> s = Files.walk(checkedIn)) {
      s.filter(p -> p.toString().endsWith(".tf"))
          .sorted()
          .forEach(
              p -> out.put("corpus/" + checkedIn.relativize(p).toString().replace('\\', '/'), p));
    }
    // one directory per JVM: concurrent builds must not delete each other's files
    Path generated =
        module.resolve("target/oracle-corpus/generated-" + ProcessHandle.current().pid());
    Files.createDirectories(generated);
    for (CorpusGenerator.Case c :
        new CorpusGenerator(SEED).generate(GENERATED_VALID, GENERATED_MUTATED)) {
      Path p = generated.resolve(c.name() + ".tf");
      Files.writeString(p, c.text(), StandardCharsets.UTF_8);
      out.put("generated/" + c.name() + ".tf", p);
    }
    return out;
  }

  static Outcome compare(String id, Path file, HclOracle.Verdict hcl) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    ParseResult ours = Parser.parse(file.getFileName().toString(), text);
    boolean oursOk = !ours.diagnostics().hasErrors();
    boolean hclOk = !hcl.syntaxError();
    if (oursOk && !hclOk) {
      return new Outcome(
          id, false, true, "HCL rejects it (" + firstLine(hcl.error()) + "), ours accepts");
    }
    if (!oursOk && hclOk) {
      Diagnostic d = ours.diagnostics().errors().get(0);
      return new Outcome(
          id,
          true,
          false,
          "HCL accepts it, ours rejects: " + d.range() + ": " + d.summary() + "; " + d.detail());
    }
    if (!oursOk) {
      return new Outcome(id, false, false, null);
    }
    JsonNode mine;
    try {
      mine = HclJson.convert(ours.body(), text);
    } catch (HclJson.Conflict c) {
      return new Outcome(
          id,
          true,
          true,
          hcl.ok() ? "ours cannot be converted (" + c.getMessage() + ") but HCL's can" : null);
    }
    if (!hcl.ok()) {
      return new Outcome(
          id,
          true,
          true,
          "hcl2json cannot convert it (" + firstLine(hcl.error()) + ") but ours can");
    }
    String diff = diff("$", mine, hcl.json());
    return new Outcome(id, true, true, diff);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** The first difference between our JSON and HCL's, or null. Numbers compare as doubles. */
  static String diff(String path, JsonNode ours, JsonNode hcl) {
    if (ours.isNumber() && hcl.isNumber()) {
      return Double.compare(ours.asDouble(), hcl.asDouble()) == 0
          ? null
          : at(path, ours.toString(), hcl.toString());
    }
    if (ours.getNodeType() != hcl.getNodeType()) {
      return at(path, ours.toString(), hcl.toString());
    }
    if (ours.isObject()) {
      TreeSet<String> a = new TreeSet<>();
      ours.fieldNames().forEachRemaining(a::add);
      TreeSet<String> b = new TreeSet<>();
      hcl.fieldNames().forEachRemaining(b::add);
      if (!a.equals(b)) {
        return at(path + " (keys)", a.toString(), b.toString());
      }
      for (String k : a) {
        String d = diff(path + "." + k, ours.get(k), hcl.get(k));
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    if (ours.isArray()) {
      if (ours.size() != hcl.size()) {
        return at(path + " (length)", ours.toString(), hcl.toString());
      }
      for (int i = 0; i < ours.size(); i++) {
        String d = diff(path + "[" + i + "]", ours.get(i), hcl.get(i));
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    return ours.equals(hcl) ? null : at(path, ours.toString(), hcl.toString());
  }

  private static String at(String path, String ours, String hcl) {
    return "at " + path + " ours " + ours + " vs HCL " + hcl;
  }
}
