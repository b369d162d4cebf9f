package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What resolving one provisioner block shares: the block, how messages name it ({@code where}), how
 * its expressions are evaluated, the diagnostics, the files it reads and the secrets it finds.
 *
 * @param where "the local-exec provisioner", ... (messages name the block so)
 */
record StepScope(
    ProvisionerDecl provisioner,
    String where,
    StepArguments.Evaluation evaluation,
    EvalContext ctx,
    Diagnostics diagnostics,
    StepFiles files,
    SecretCollector secrets) {

  /** The scope of {@code p}: fresh diagnostics; secrets go to {@code sensitive}. */
  static StepScope of(
      ProvisionerDecl p,
      StepArguments.Evaluation evaluation,
      EvalContext ctx,
      Set<String> sensitive) {
    Diagnostics diagnostics = new Diagnostics();
    return new StepScope(
        p,
        "the " + p.type() + " provisioner",
        evaluation,
        ctx,
        diagnostics,
        new StepFiles(ctx, diagnostics),
        new SecretCollector(sensitive));
  }

  /** Evaluates {@code decls} (see {@link StepArguments}). */
  StepArguments evaluate(Map<String, AttributeDecl> decls, boolean connection) {
    return new StepArguments(decls, connection, evaluation, ctx, where, diagnostics, secrets);
  }

  /** True when {@code args} sets exactly one of {@code names}; an error at the block otherwise. */
  boolean exactlyOne(StepArguments args, String... names) {
    long n = Stream.of(names).filter(args::has).count();
    if (n == 1) {
      return true;
    }
    diagnostics.error(
        n == 0 ? "Missing required argument" : "Conflicting arguments",
        where + " requires exactly one of: " + String.join(", ", names) + ".",
        provisioner.range());
    return false;
  }
}
