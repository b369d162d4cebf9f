package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.planner.apply.ApplySteps;
import dev.stagecraft.planner.apply.PlannedStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Configurations written the way people write them for Terraform today ({@code null_resource} /
 * {@code terraform_data} provisioning, {@code stateful_provisioning} deployments), one directory
 * each under {@code src/test/resources/realworld/}. Each must plan unchanged against an empty state
 * to exactly the creates listed in its {@code expected.txt}, resolve every action (attributes and
 * provisioner steps) at a simulated apply, and then plan again to nothing but no-ops.
 *
 * <p>A directory that does not plan because of a planner or language gap is listed in {@link
 * #KNOWN_GAPS}, where it must keep failing: fixing the gap makes that test fail, so the entry is
 * removed and the directory joins the passing corpus.
 */
class RealWorldConfigurationsTest {

  /** The known gaps (below) with the error each fails with. */
  static final Map<String, String> KNOWN_GAP_ERRORS = Map.of();

  /**
   * Directories that do not plan yet because of a gap in the planner or the language (not in the
   * configuration), with the error they fail with. Each must still fail with it; remove the entry
   * when the gap is fixed.
   */
  static final Set<String> KNOWN_GAPS = KNOWN_GAP_ERRORS.keySet();

  private static final ObjectMapper JSON = new ObjectMapper();

  static Path root() {
    URL url = RealWorldConfigurationsTest.class.getResource("/realworld");
    if (url == null) {
      return Path.of("src/test/resources/realworld");
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<String> allDirectories() {
    try (Stream<Path> dirs = Files.list(root())) {
      return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<Named<String>> configurations() {
    return allDirectories().stream().filter(d -> !KNOWN_GAPS.contains(d)).map(d -> Named.of(d, d));
  }

  static Stream<Named<String>> knownGaps() {
    return KNOWN_GAPS.stream().sorted().map(d -> Named.of(d, d));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void plansUnchangedCreatesEverythingAndIsIdempotent(String directory) throws IOException {
    check(root().resolve(directory));
  }

  @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
  @MethodSource("knownGaps")
  void knownGapStillFails(String directory) {
    assertThat(allDirectories()).contains(directory);
    assertThatThrownBy(() -> check(root().resolve(directory)))
        .as(directory + " plans now: remove it from KNOWN_GAPS")
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(KNOWN_GAP_ERRORS.get(directory));
  }

  @Test
  void theCorpusIsLargeEnough() {
    List<String> all = allDirectories();
    assertThat(all.stream().filter(d -> !KNOWN_GAPS.contains(d)).count())
        .as("passing configurations")
        .isGreaterThanOrEqualTo(20);
    long withJson =
        all.stream()
            .filter(
                d -> {
                  try (Stream<Path> files = Files.list(root().resolve(d))) {
                    return files.anyMatch(f -> f.getFileName().toString().endsWith(".tf.json"));
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                })
            .count();
    assertThat(withJson).as("configurations in JSON syntax").isGreaterThanOrEqualTo(2);
  }

  /** Plans {@code dir} from scratch, applies it in simulation and plans again. */
  static void check(Path dir) throws IOException {
    Map<String, String> files = configurationFiles(dir);
    assertThat(files).as("configuration files in " + dir).isNotEmpty();
    Map<String, String> variables = tfvars(dir);

    PlanResult first =
        Planner.plan(
            new PlanRequest("default", files, variables, List.of(), false, dir),
            PriorState.empty());
    assertThat(first.hasErrors()).as("first plan:\n" + first.renderDiagnostics()).isFalse();
    Plan plan = first.plan();
    String rendered = PlanRenderer.render(plan);
    List<String> expected = expectedAddresses(dir);
    assertThat(plan.actions())
        .as(rendered)
        .allSatisfy(a -> assertThat(a.action()).as(a.address()).isEqualTo(ActionType.CREATE));
    assertThat(plan.actions().stream().map(PlannedAction::address).toList())
        .as(rendered)
        .containsExactlyInAnyOrderElementsOf(expected);

    // simulated apply: every action resolved in schedule order, with ids known as they are created
    Map<String, Map<String, Object>> applied = new LinkedHashMap<>();
    AtomicInteger ids = new AtomicInteger(1000);
    Map<String, PlannedAction> byAddress = new LinkedHashMap<>();
    plan.changes().forEach(a -> byAddress.put(a.address(), a));
    ApplySteps schedule = ApplySteps.of(plan, 10);
    while (!schedule.isFinished()) {
      List<PlannedStep> ready = schedule.ready();
      if (ready.isEmpty()) {
        fail("the apply schedule is stuck:\n" + rendered);
      }
      for (PlannedStep step : ready) {
        schedule = schedule.dispatched(step.address());
      }
      for (PlannedStep step : ready) {
        PlannedAction a = byAddress.get(step.address());
        ActionResolution r =
            first.applyContext().resolve(a, applied, () -> "id-" + ids.incrementAndGet());
        assertThat(r.hasErrors())
            .as("resolving " + a.address() + ":\n" + r.renderDiagnostics())
            .isFalse();
        applied.put(a.address(), r.attributes());
        schedule = schedule.succeeded(a.address());
      }
    }

    String state = v4State(plan, applied);
    PlanResult second =
        Planner.plan(
            new PlanRequest("default", files, variables, List.of(), false, dir),
            PriorState.fromV4Json(state));
    assertThat(second.hasErrors()).as("second plan:\n" + second.renderDiagnostics()).isFalse();
    String renderedSecond = PlanRenderer.render(second.plan());
    assertThat(second.plan().actions().stream().map(PlannedAction::address).toList())
        .as(renderedSecond)
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(second.plan().actions())
        .as("second plan against the applied state:\n" + renderedSecond + "\nstate: " + state)
        .allSatisfy(a -> assertThat(a.action()).as(a.address()).isEqualTo(ActionType.NO_OP));
    for (OutputChange o : second.plan().outputChanges()) {
      assertThat(o.afterUnknown()).as("output " + o.name() + " after apply").isFalse();
      boolean recorded =
          plan.output(o.name()).map(p -> !p.afterUnknown() && !p.sensitive()).orElse(false);
      if (recorded) {
        assertThat(o.actions()).as("output " + o.name()).containsExactly("no-op");
      }
    }
  }

  static Map<String, String> configurationFiles(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path f : list.sorted().toList()) {
        String name = f.getFileName().toString();
        if (Files.isRegularFile(f) && (name.endsWith(".tf") || name.endsWith(".tf.json"))) {
          files.put(name, Files.readString(f, StandardCharsets.UTF_8));
        }
      }
    }
    return files;
  }

  /** {@code terraform.tfvars} as the CLI reads it: each value evaluated, then as text. */
  static Map<String, String> tfvars(Path dir) throws IOException {
    Path file = dir.resolve("terraform.tfvars");
    if (!Files.isRegularFile(file)) {
      return Map.of();
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    ParseResult parsed = Parser.parse("terraform.tfvars", text);
    Diagnostics diagnostics = new Diagnostics().addAll(parsed.diagnostics());
    Map<String, String> out = new LinkedHashMap<>();
    Evaluator evaluator = new Evaluator();
    for (Body.Attribute a : parsed.body().attributes()) {
      EvalResult r = evaluator.evaluate(a.expr(), SimpleEvalContext.empty());
      diagnostics.addAll(r.diagnostics());
      if (!r.hasErrors()) {
        out.put(a.name(), r.value().asString());
      }
    }
    assertThat(diagnostics.hasErrors())
        .as(diagnostics.render(Map.of("terraform.tfvars", text)))
        .isFalse();
    return out;
  }

  static List<String> expectedAddresses(Path dir) throws IOException {
    Path file = dir.resolve("expected.txt");
    assertThat(file).as("expected.txt").isRegularFile();
    return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  /** A v4 state document holding the applied instances and the known, non-sensitive outputs. */
  static String v4State(Plan plan, Map<String, Map<String, Object>> applied) throws IOException {
    Map<String, Map<String, Object>> resources = new LinkedHashMap<>();
    for (PlannedAction a : plan.actions()) {
      Map<String, Object> resource =
          resources.computeIfAbsent(
              a.resourceAddress(),
              k -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("mode", "managed");
                r.put("type", a.type());
                r.put("name", a.name());
                r.put("provider", "provider[\"stagecraft.dev/builtin/stagecraft\"]");
                r.put("instances", new ArrayList<Map<String, Object>>());
                return r;
              });
      Map<String, Object> instance = new LinkedHashMap<>();
      instance.put("schema_version", 0);
      if (a.index() != null) {
        instance.put("index_key", a.index());
      }
      instance.put("attributes", applied.get(a.address()));
      instance.put("dependencies", a.dependencies());
      if (a.createBeforeDestroy()) {
        instance.put("create_before_destroy", true);
      }
      if (a.skipDestroy()) {
        instance.put("skip_destroy", true);
      }
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> instances = (List<Map<String, Object>>) resource.get("instances");
      instances.add(instance);
    }
    Map<String, Object> outputs = new LinkedHashMap<>();
    for (OutputChange o : plan.outputChanges()) {
      if (!o.afterUnknown() && !o.sensitive()) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("value", o.after());
        out.put("type", "dynamic");
        outputs.put(o.name(), out);
      }
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 4);
    doc.put("terraform_version", "1.9.0");
    doc.put("serial", 1);
    doc.put("lineage", "realworld");
    doc.put("outputs", outputs);
    doc.put("resources", new ArrayList<>(resources.values()));
    return JSON.writeValueAsString(doc);
  }
}
