package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import java.nio.file.Path;
import java.util.Set;

/**
 * The parts of step resolution alone: parses a configuration as {@code main.tf} and gives its first
 * resource and the scope of that resource's first provisioner (no planner, no model; the variable
 * {@code var.secret} is a sensitive {@code "s3cret-value"}).
 */
final class StepScopes {
  static final String SECRET = "s3cret-value";

  private StepScopes() {}

  static ResourceDecl resource(String config) {
    LoadResult loaded = ConfigLoader.load("main.tf", config);
    assertThat(loaded.hasErrors()).as(loaded.diagnostics().toString()).isFalse();
    return loaded.config().resources().get(0);
  }

  /** The scope of the first provisioner of {@code resource}; files relative to {@code dir}. */
  static StepScope scope(ResourceDecl resource, Path dir, Set<String> secrets) {
    ProvisionerDecl p = resource.provisioners().get(0);
    SimpleEvalContext ctx =
        SimpleEvalContext.empty()
            .withBaseDirectory(dir)
            .withFileAccessConfined(true)
            .withVariable("secret", Value.of(SECRET).mark(true));
    return StepScope.of(p, new Evaluator()::evaluate, ctx, secrets);
  }

  static StepArguments arguments(StepScope scope) {
    return scope.evaluate(scope.provisioner().attributes(), false);
  }
}
